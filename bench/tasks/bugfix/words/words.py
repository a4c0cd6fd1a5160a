"""Counts the words of a text."""


def word_count(text):
    return len(text.split(" "))
