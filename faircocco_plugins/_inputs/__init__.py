"""Inputs: the variables read from the user's arrays and frames, their column kinds and row
order, and the shape of the results handed back."""
