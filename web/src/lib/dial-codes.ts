// Dialling codes and the country search of sign-up (a module of its own: the personal centre's
// screens use the names of lib/countries.ts only, and need not download these).
// The international dialling code of each (ITU-T E.164 country codes; North American numbers
// with their area code), to find a country by typing "+44" or "852".
const DIAL =
  'AD376AE971AF93AG1268AI1264AL355AM374AO244AQ672AR54AS1684AT43AU61AW297AX358AZ994BA387BB1246BD880BE32BF226BG359BH973BI257BJ229BL590BM1441BN673BO591BQ599BR55BS1242BT975BV47BW267BY375BZ501CA1CC61CD243CF236CG242CH41CI225CK682CL56CM237CN86CO57CR506CU53CV238CW599CX61CY357CZ420DE49DJ253DK45DM1767DO1809DZ213EC593EE372EG20EH212ER291ES34ET251FI358FJ679FK500FM691FO298FR33GA241GB44GD1473GE995GF594GG44GH233GI350GL299GM220GN224GP590GQ240GR30GS500GT502GU1671GW245GY592HK852HM672HN504HR385HT509HU36ID62IE353IL972IM44IN91IO246IQ964IR98IS354IT39JE44JM1876JO962JP81KE254KG996KH855KI686KM269KN1869KP850KR82KW965KY1345KZ7LA856LB961LC1758LI423LK94LR231LS266LT370LU352LV371LY218MA212MC377MD373ME382MF590MG261MH692MK389ML223MM95MN976MO853MP1670MQ596MR222MS1664MT356MU230MV960MW265MX52MY60MZ258NA264NC687NE227NF672NG234NI505NL31NO47NP977NR674NU683NZ64OM968PA507PE51PF689PG675PH63PK92PL48PM508PN64PR1787PS970PT351PW680PY595QA974RE262RO40RS381RU7RW250SA966SB677SC248SD249SE46SG65SH290SI386SJ47SK421SL232SM378SN221SO252SR597SS211ST239SV503SX1721SY963SZ268TC1649TD235TF262TG228TH66TJ992TK690TL670TM993TN216TO676TR90TT1868TV688TW886TZ255UA380UG256UM1US1UY598UZ998VA39VC1784VE58VG1284VI1340VN84VU678WF681WS685YE967YT262ZA27ZM260ZW263';
let dialCodes: Map<string, string> | null = null;

/** The dialling code of `code` without the "+" ("44"), or "" when there is none. */
export function dialCode(code: string): string {
  dialCodes ??= new Map([...DIAL.matchAll(/([A-Z]{2})(\d+)/g)].map((m) => [m[1]!, m[2]!]));
  return dialCodes.get(code.toUpperCase()) ?? '';
}

const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();

/**
 * Whether the option matches what was typed: a part of its name (any case, accents ignored), its
 * code ("GB"), or the start of its dialling code ("+44", "0044", "852").
 */
export function matchesCountry(o: { code: string; name: string }, query: string): boolean {
  const q = fold(query);
  if (!q) return true;
  const digits = q.replace(/^(\+|00)/, '').replace(/[\s-]/g, '');
  if (/^\d+$/.test(digits)) {
    const d = dialCode(o.code);
    return d !== '' && d.startsWith(digits);
  }
  return fold(o.name).includes(q) || o.code.toLowerCase() === q;
}

