def is_valid(isbn):
    pass
