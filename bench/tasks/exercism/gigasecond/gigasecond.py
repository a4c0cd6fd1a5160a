def add(moment):
    pass
