package scalar

// DateTimeLayout is how a DateTime is written (MarshalDateTime), for
// writers that append it without a Marshaler (the executor's fast path).
const DateTimeLayout = dateTimeLayout
