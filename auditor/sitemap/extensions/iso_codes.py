"""The code lists hreflang and video restrictions are judged by, as data (no I/O).

Generated from pycountry 26.2.16 (the Debian iso-codes databases): ISO 639-1 languages (184),
ISO 3166-1 alpha-2 regions (249), ISO 15924 scripts (224), and the ISO 3166-1 codes that are
reserved rather than assigned (wooorm/iso-3166 and the CLDR region table). Google's hreflang page
accepts "only language codes listed in ISO 639-1 and region codes listed in ISO 3166-1 Alpha 2".
"""

from __future__ import annotations

# ISO 639-1 two-letter languages; `sh` (Serbo-Croatian) is deprecated but listed.
ISO_639_1 = frozenset(
    """
aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy da
de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy
hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg
li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or
os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg sh si sk sl sm sn so sq sr ss st su sv sw
ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu
""".split()  # noqa: SIM905 - data, kept as words
)


# Withdrawn ISO 639-1 codes, still met (Java's Locale wrote them for years): what replaced them.
ISO_639_1_WITHDRAWN = {"iw": "he", "in": "id", "ji": "yi", "jw": "jv", "mo": "ro"}


# ISO 3166-1 alpha-2, officially assigned.
ISO_3166_1 = frozenset(
    """
AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR
BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ
EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW
GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY
KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV
MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY
QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG
TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM
ZW
""".split()  # noqa: SIM905 - data, kept as words
)


# Reserved, formerly assigned or user-assigned ISO 3166-1 codes: UK, EU, UN, ... Google: "Search
# ignores that part of the annotation".
ISO_3166_1_RESERVED = frozenset(
    """
AA AC AN AP BU BX CP CQ CS CT DD DG DY EA EF EM EP EU EV EW EZ FL FQ FX GC HV IB IC JA JT LF
MI NH NQ NT OA PC PI PU PZ QM QN QO QP QQ QR QS QT QU QV QW QX QY QZ RA RB RC RH RI RL RM RN
RP SF SU TA TP UK UN VD WG WK WL WO WV XA XB XC XD XE XF XG XH XI XJ XK XL XM XN XO XP XQ XR
XS XT XU XV XW XX XY XZ YD YU YV ZR ZZ
""".split()  # noqa: SIM905 - data, kept as words
)


# ISO 15924 scripts (title case, as printed): Hant, Hans, Latn, Cyrl, ...
ISO_15924 = frozenset(
    """
Adlm Afak Aghb Ahom Arab Aran Armi Armn Avst Bali Bamu Bass Batk Beng Berf Bhks Blis Bopo
Brah Brai Bugi Buhd Cakm Cans Cari Cham Cher Chis Chrs Cirt Copt Cpmn Cprt Cyrl Cyrs Deva
Diak Dogr Dsrt Dupl Egyd Egyh Egyp Elba Elym Ethi Gara Geok Geor Glag Gong Gonm Goth Gran
Grek Gujr Gukh Guru Hanb Hang Hani Hano Hans Hant Hatr Hebr Hira Hluw Hmng Hmnp Hntl Hrkt
Hung Inds Ital Jamo Java Jpan Jurc Kali Kana Kawi Khar Khmr Khoj Kitl Kits Knda Kore Kpel
Krai Kthi Lana Laoo Latf Latg Latn Leke Lepc Limb Lina Linb Lisu Loma Lyci Lydi Mahj Maka
Mand Mani Marc Maya Medf Mend Merc Mero Mlym Modi Mong Moon Mroo Mtei Mult Mymr Nagm Nand
Narb Nbat Newa Nkdb Nkgb Nkoo Nshu Ogam Olck Onao Orkh Orya Osge Osma Ougr Palm Pauc Pcun
Pelm Perm Phag Phli Phlp Phlv Phnx Piqd Plrd Prti Psin Ranj Rjng Rohg Roro Runr Samr Sara
Sarb Saur Seal Sgnw Shaw Shrd Shui Sidd Sidt Sind Sinh Sogd Sogo Sora Soyo Sund Sunu Sylo
Syrc Syre Syrj Syrn Tagb Takr Tale Talu Taml Tang Tavt Tayo Telu Teng Tfng Tglg Thaa Thai
Tibt Tirh Tnsa Todr Tols Toto Tutg Ugar Vaii Visp Vith Wara Wcho Wole Xpeo Xsux Yezi Yiii
Zanb Zinh Zmth Zsye Zsym Zxxx Zyyy Zzzz
""".split()  # noqa: SIM905 - data, kept as words
)
