CPU FUNCTION                                 
 *[0-9]+  \-> outer                                 
 *[0-9]+    \-> middle                              
 *[0-9]+     \| middle:entry                        
 *[0-9]+      \-> inner                             
 *[0-9]+      <\- inner                             
 *[0-9]+    <\- middle                              
 *[0-9]+  <\- outer                                 
 *[0-9]+  \-> outer                                 
 *[0-9]+    \-> middle                              
 *[0-9]+     \| middle:entry                        
 *[0-9]+      \-> inner                             
 *[0-9]+      <\- inner                             
 *[0-9]+    <\- middle                              
 *[0-9]+  <\- outer                                 
 *[0-9]+ \| :END                                    

