def tolist(a):
    if type(a) is list:
        return a
    return [a]


def get_dict_values(dicts, keys):
    return [dicts[k] for k in keys if k in dicts]
