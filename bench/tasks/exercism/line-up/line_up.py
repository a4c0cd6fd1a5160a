def line_up(name, number):
    pass
