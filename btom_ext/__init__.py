"""The numeric core of elot's Bayesian theory of mind.

``btom_ext.core`` is a compiled Cython extension; ``btom_ext.reference`` implements the same
functions in plain Python/NumPy and is the specification the tests hold the core to.
"""
