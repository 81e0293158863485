total = price * count * 2
