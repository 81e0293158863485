def start_server(port):
    log('starting')
    bind(port)
    return True


def start_client(port):
    log('starting')
    connect(port)
    return True
