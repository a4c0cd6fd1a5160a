class Garden:
    def __init__(self, diagram, students):
        pass
