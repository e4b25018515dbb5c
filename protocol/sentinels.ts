// Values Kafka gives a meaning beyond their type, shared by the definitions and the handlers that fill them.

/** The all-zero uuid: no topic id (a topic named by name, or not known). */
export const ZERO_UUID: Buffer = Buffer.alloc(16);

/** Integer.MIN_VALUE in an authorizedOperations field: the client did not ask for them (KIP-430). */
export const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;
