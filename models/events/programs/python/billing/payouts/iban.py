class InvalidIban(ValueError):
    pass


def mod97(s):
    return int("".join(str(int(ch, 36)) for ch in s)) % 97


def check(account):
    """ISO 13616: the first four characters moved to the end, letters as numbers, the whole mod 97 must be 1."""
    s = account.replace(" ", "").upper()
    rest = mod97(s[4:] + s[:4])
    if rest != 1:
        raise InvalidIban("IBAN %s fails its checksum (mod 97 = %d)" % (account, rest))
    return s
