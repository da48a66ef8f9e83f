// msgpackr tries this optional native module and falls back to pure JavaScript when it throws.
throw new Error('msgpackr-extract is not available in this build (pure-JS msgpackr is used)');
