"""Live measurement (issue 33): `cellcc live serve` on a wired host, `cellcc live run PLAN` on the
measuring host, `cellcc live replay RUN` to set a recorded run beside the engine and the kernel.
docs/live.md is the guide; one module per concern:

    protocol.py   frames, the PSK challenge-response, sealed frames
    config.py     the server's configuration, limits, keys, quota ledger, per-source session rate
    server.py     the daemon
    client.py     one session, the measuring host's side
    tcp.py        one TCP transfer, both ends (the Linux backend's sampler and loops)
    udp.py        the capacity saturator, its receiver, packet trains; traces and queue from them
    host.py       host provenance and interface counters
    radio.py      the modem's radio readings (ModemManager, qmicli, AT commands)
    plan.py       the plan file: places x periods x CCAs x directions x repetitions
    results.py    a live run as the engine's tables, plus radio and interface tables
    run.py        running a plan into a results store (resumable)
    replay.py     a recorded run on the engine and the kernel, side by side
"""
