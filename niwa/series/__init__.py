"""Series of matches between given bots: ``niwa match`` and ``niwa tournament``.

* :mod:`niwa.series.stats`: Elo with 95 % intervals, LOS and the SPRT (pure functions).
* :mod:`niwa.series.games`: one game as a worker-process job, and the pool that runs them.
* :mod:`niwa.series.schedule`: seatings, seat rotations and tournament pairings.
* :mod:`niwa.series.report`: the live table and the JSON lines.
* :mod:`niwa.series.tournament`: a tournament played (standings or a knockout).
* :mod:`niwa.series.bracket`: a knockout bracket: seeding, byes, ties, its drawing.
* :mod:`niwa.series.progress`: the progress file that ``--resume`` continues.
"""
