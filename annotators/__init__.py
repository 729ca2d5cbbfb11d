"""Raters, assignments, ratings, quality control and the rater screens."""
