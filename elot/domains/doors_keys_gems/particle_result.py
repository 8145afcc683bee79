"""What particle inference gives (SPEC §8): the engine's, written once for any world model
(:mod:`elot.engine.worlds.particle_result`; the space is :class:`elot.engine.worlds.spaces.ParticleSpace`),
importable from here as before."""

from elot.engine.worlds.particle_result import (DEGENERATE_RATIO, FEW_DISTINCT, FEW_ISLANDS, ParticleInference,  # noqa: F401
                                         Particles, dense_beliefs, effective_size)
from elot.engine.worlds.spaces import ParticleSpace  # noqa: F401
