"""Briefing: ticker briefing scripts written from panel debates (a host and an analyst), their
checks and edits, durable jobs, and the spoken audio. It runs the debate context's panel."""
