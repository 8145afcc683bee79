"""The elot REPL: an interactive session over one scenario and its BToM inference.

``repl.session`` holds the state, ``repl.commands`` the ``:commands``, ``repl.render``
the rich renderables (map, bar charts, score tables, sparklines, errors),
``repl.complete`` tab completion and ``repl.app`` the loop.
"""
