"""The gridworld half: the Doors-Keys-Gems world, its file readers (.scn, PDDL, the LaBToM
dataset), the hypothesis space, exact and particle inference, the simulated agent, scoring."""
