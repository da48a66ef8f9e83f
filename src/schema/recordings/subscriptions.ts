// No recording subscription yet: the live recordings module adds one (and publishes its topic) with the subscribe socket.
export {};
