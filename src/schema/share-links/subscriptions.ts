// Share links have no events of their own: a revoked link simply stops answering.
export {};
