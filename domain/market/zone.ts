/** The market's zone, as every part of the app names it: the engine's clock, e-mails and the screens. */

/** The market's IANA zone. */
export const MARKET_TIME_ZONE = 'America/New_York';
/** The market zone's label after a time: `14:05 ET`. */
export const MARKET_LABEL = 'ET';
/** The market zone's name in titles: `Time (New York)`. */
export const MARKET_NAME = 'New York';
