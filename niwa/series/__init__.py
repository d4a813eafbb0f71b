"""Series of matches between given bots: ``niwa match`` and ``niwa tournament``.

* :mod:`niwa.series.stats`: Elo with 95 % intervals, LOS and the SPRT (pure functions).
* :mod:`niwa.series.games`: one game as a worker-process job, and the pool that runs them.
* :mod:`niwa.series.schedule`: seatings, seat rotations and tournament pairings.
* :mod:`niwa.series.report`: the live table and the JSON lines.
"""
