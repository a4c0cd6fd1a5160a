"""Tells whether a phrase reads the same backwards."""


def is_palindrome(text):
    letters = [c.lower() for c in text if c.isalnum()]
    return letters == letters[::-1]
