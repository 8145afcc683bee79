"""Food trucks (Baker, Jara-Ettinger, Saxe & Tenenbaum 2017, Experiment 1) as a domain of
:mod:`elot.engine`: the world and line of sight (``world``, ``geometry``), the domain
(``domain``), scenarios (``scenarios``), the authors' models and their outputs (``model``),
scoring against people's ratings (``scoring``) and the ELoT signature (``language``)."""

from elot.domains.foodtrucks.domain import FoodTrucks

__all__ = ["FoodTrucks"]
