"""People and judges: the review sheet people label, and how far each judge agrees with them."""
