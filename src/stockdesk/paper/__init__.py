"""The paper book: a simulated account that follows the desk's daily rules verdicts, filled by the
one execution module at the next open, marked to market at each close."""
