"""A/B tests between two versions of a bot: is NEW better than OLD?

Duplicate (paired) blocks and a generalised sequential probability ratio test on their scores
(:mod:`arena.abtest.sprt`), and a simulation that checks the test's error rates with in-process
players of known strength (:mod:`arena.abtest.simulate`). The formulas are in ``docs/ABTEST.md``.
"""
