// The recording subscribe socket (`recording:<id>` frames) belongs to the live recordings module.
export {};
