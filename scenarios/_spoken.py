"""Figures as a person in the meeting says them: the one number-to-words helper the scenario scripts share."""

from __future__ import annotations

ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
).split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def say_number(
    v: float,
    *,
    a_hundred: bool = False,
    hundreds: str = "thousands",
    point: bool = True,
) -> str:
    """A figure in words: 26 'twenty-six', 4.5 'four and a half', 14.4 'fourteen point four', 360 'three
    hundred and sixty', 2,500 'two thousand five hundred'.

    ``a_hundred``: 150 is 'a hundred and fifty' (else 'one hundred and fifty'). ``hundreds`` says how
    figures from 1,000 are said: 'thousands' ('one thousand one hundred'), 'round' (round hundreds
    under 2,000 as 'eleven hundred', the rest in thousands) or 'always' ('seventeen hundred',
    'twenty-five hundred'). ``point``: decimals other than a half are said digit by digit ('point
    four'); without it they are dropped.
    """
    whole = int(v)
    if v != whole:
        if v - whole == 0.5:
            return f"{say_number(whole, a_hundred=a_hundred, hundreds=hundreds)} and a half"
        if point:
            decimals = f"{v:.2f}".rstrip("0").split(".")[1]
            return f"{say_number(whole, a_hundred=a_hundred, hundreds=hundreds)} point " + " ".join(
                ONES[int(d)] for d in decimals
            )

    def say(n: int) -> str:
        return say_number(n, a_hundred=a_hundred, hundreds=hundreds)

    if whole < 20:
        return ONES[whole]
    if whole < 100:
        return TENS[whole // 10] + ("" if whole % 10 == 0 else "-" + ONES[whole % 10])
    teen_round = hundreds == "round" and whole < 2000 and whole % 100 == 0 and whole % 1000 != 0
    if whole < 1000 or teen_round or hundreds == "always":
        head = "a hundred" if a_hundred and whole // 100 == 1 else f"{say(whole // 100)} hundred"
        return head if whole % 100 == 0 else f"{head} and {say(whole % 100)}"
    head = f"{say(whole // 1000)} thousand"
    return head if whole % 1000 == 0 else f"{head} {say(whole % 1000)}"
