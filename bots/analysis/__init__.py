"""The analysis of a finished match: each play of one seat judged from what that seat knew then.

positions (the seat's Knowledge at each of its plays, from the public log and its own hand),
judge (the maestro's search over every legal play: the best one and the points lost), store
(the durable queue of analyses), worker (runs them one at a time, off the move path), service
and servicer (tavolo.bots.v1.AnalysisService). docs/analysis.md tells the method.
"""
