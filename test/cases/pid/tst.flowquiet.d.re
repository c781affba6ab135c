CPU FUNCTION                                 
 *[0-9]+  \-> outer                                 1
 *[0-9]+    \-> inner                               1
 *[0-9]+    <\- inner                               = 2
 *[0-9]+  <\- outer                                 = 7
 *[0-9]+  \-> outer                                 2
 *[0-9]+    \-> inner                               2
 *[0-9]+    <\- inner                               = 3
 *[0-9]+  <\- outer                                 = 9

