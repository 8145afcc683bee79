"""Food trucks (Baker, Jara-Ettinger, Saxe & Tenenbaum 2017, Experiment 1) as a domain of
:mod:`elot.engine`: the world and line of sight (``world``, ``geometry``), the domain
(``domain``), scenarios (``scenarios``, ``.trucks`` files in ``trucksfile``), the authors'
models and their outputs (``model``), scoring against people's ratings (``scoring``), the
ELoT signature (``language``), the front every command asks (``front``), its frames
(``draw``) and its scenes told in words (``tell``)."""

#: Scenario references that name this domain (``foodtrucks:12``).
PREFIX = "foodtrucks:"
#: The suffix of elot's food-truck scenario files.
SUFFIX = ".trucks"


def names_trucks(spec: str) -> bool:
    """Whether a scenario reference is a food-truck one (``foodtrucks:ID``, a ``.trucks``
    file, ``FILE.trucks:PICK``: the pick after the last colon, as a file's name may hold one)."""
    spec = spec.lower()
    return spec.startswith(PREFIX) or spec.endswith(SUFFIX) or spec.rpartition(":")[0].endswith(SUFFIX)


def unprefixed(spec: str) -> str:
    """``spec`` without ``foodtrucks:`` (unless the whole of it is a file's name)."""
    from pathlib import Path

    return spec[len(PREFIX):] if spec.lower().startswith(PREFIX) and not Path(spec).is_file() else spec
