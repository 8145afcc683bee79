"""The old name of :mod:`elot.domains.doors_keys_gems`.

Doors-Keys-Gems is one domain of the engine now and lives beside food trucks; scripts that
import ``elot.btom.inference`` and the like keep working and get the very same modules
(every module of the domain is imported when this package is).
"""

import importlib
import pkgutil
import sys

_NEW = "elot.domains.doors_keys_gems"

_package = importlib.import_module(_NEW)
for _info in pkgutil.iter_modules(_package.__path__):
    _module = importlib.import_module(f"{_NEW}.{_info.name}")
    sys.modules[f"{__name__}.{_info.name}"] = _module
    globals()[_info.name] = _module
