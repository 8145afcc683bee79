"""Built-in example scenarios and formulas, installed as ``elot.examples``."""
