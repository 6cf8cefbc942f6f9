/**
 * The FSPIOP Date header (FSPIOP API v1.1 section 3.2.2: RFC 7231 IMF-fixdate, e.g.
 * `Sun, 06 Nov 1994 08:49:37 GMT`). The original checks it with Joi's date format
 * `ddd, DD MMM YYYY HH:mm:ss [GMT]`, strict (central-services-shared
 * src/util/hapi/plugins/headerValidation.js): another layout, an impossible date or a weekday that does
 * not match the date is 3101.
 */
const imfFixdate =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) ([01]\d|2[0-3]):([0-5]\d):([0-5]\d) GMT$/;
const weekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

// Clients stamp many requests in the same second: the last valid text answers them without a parse.
let lastValid = '';

export function isHttpDate(text: string): boolean {
  if (text === lastValid) return true;
  const match = imfFixdate.exec(text);
  if (!match) return false;
  const [, weekday, day, month, year] = match as unknown as [string, string, string, string, string];
  const date = new Date(Date.UTC(Number(year), months.indexOf(month), Number(day)));
  if (date.getUTCDate() !== Number(day) || weekdays[date.getUTCDay()] !== weekday) return false;
  lastValid = text;
  return true;
}
