"""The elot REPL: an interactive session over one scenario and its BToM inference, or
over a belief model of your own.

The REPL only displays and dispatches: the session it shows (state, settings, queries) is
the library's :mod:`elot.session`. ``elot.repl.commands`` holds the ``:commands``, ``elot.repl.render``
the rich renderables (map, bar charts, score tables, sparklines, errors),
``elot.repl.complete`` tab completion and ``elot.repl.app`` the loop.
"""
