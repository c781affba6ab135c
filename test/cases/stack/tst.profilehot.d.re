
 *sonde-hot`hot_function\+0x[0-9a-f]+


