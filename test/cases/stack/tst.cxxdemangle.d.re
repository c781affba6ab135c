
 *sonde-hotcc`sonde::Worker<unsigned long>::spin\(int\)\+0x[0-9a-f]+
.*


