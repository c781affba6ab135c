/* @a[1][2]: an aggregation is not a multi-dimensional array. (Keys that
   differ in number from the first use are D_PROTO_LEN: err.D_PROTO_LEN.aggkeys.d.) */
BEGIN { @a[1][2] = count(); }
