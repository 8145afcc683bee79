"""Built-in example scenarios and formulas, the package ``elot.examples``."""
