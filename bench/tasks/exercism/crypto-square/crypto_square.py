def cipher_text(plain_text):
    pass
