"""Judging a store: the batch run and the policies that choose a judge per answer.

Also the tiered escalation, the signals beside the verdicts, and the verdict row written for
each answer.
"""
