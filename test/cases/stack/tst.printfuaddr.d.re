[A-Za-z0-9_.+-]+`[A-Za-z0-9_.]+(\+0x[0-9a-f]+)?
sonde-hot`hot_function(\+0x[0-9a-f]+)?

