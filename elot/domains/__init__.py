"""Built-in domains for :mod:`elot.engine`: each a package that implements the domain
protocol (:class:`elot.engine.Domain`). ``foodtrucks``: Baker et al. (2017)."""
