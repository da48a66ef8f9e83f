import './inputs.js';
import './types.js';
import './queries.js';
import './mutations.js';
import './subscriptions.js';
