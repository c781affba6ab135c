CPU FUNCTION                                 
 *[0-9]+  => getppid                               
 *[0-9]+  <= getppid                               
 *[0-9]+  => getppid                               
 *[0-9]+  <= getppid                               

