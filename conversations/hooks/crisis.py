"""Deterministic crisis detection (English and Spanish) that runs before any model sees a message.

Recall comes first: a missed crisis is the costly error, so patterns are broad and only narrow,
explicit contexts cancel a hit (a negation right before it, past-time markers in its clause, a
screening question someone else asked, laughter after a threat idiom). A model may add a second
opinion through `combine_crisis`, which can only escalate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Protocol

from conversations.hooks.normalize import normalize
from vocab import ASSAULT, CRISIS_CATEGORIES, DANGER, DV, HOUSING, MEDICAL, NO_CRISIS, SUICIDE

__all__ = [
    "CRISIS_CATEGORIES",
    "SEVERITIES",
    "CrisisOpinion",
    "CrisisResult",
    "carry_crisis",
    "combine_crisis",
    "crisis_carries",
    "crisis_check",
    "detect_crisis",
]

# The categories (ordered by the harm of routing to the wrong line: the first detected one wins)
# come from the project's one vocabulary.
NONE: Final = NO_CRISIS
SEVERITIES: Final = ("none", "elevated", "high", "imminent")
_RANK: Final = {name: rank for rank, name in enumerate(SEVERITIES)}
# A person threatening or stalking: domestic violence when a partner or relative is named nearby,
# immediate danger otherwise.
_THREAT: Final = "threat"

_GAP: Final = r"[\W_]{0,4}"


def _rx(source: str) -> re.Pattern[str]:
    """Compile a pattern whose literal spaces mean "any short gap, even none" ("killmyself").

    Spaces inside character classes or look-behinds would break: write those with \\s.
    """
    return re.compile(source.replace(" ", _GAP))


@dataclass(frozen=True, slots=True)
class _Rule:
    category: str
    severity: str
    pattern: re.Pattern[str]
    negatable: bool = True  # "not"/"never"/"no" right before cancels it
    historical: bool = True  # "used to", "back in 2018", "hace años" in its clause cancels it
    joke_sensitive: bool = False  # "lol"/"haha"/"jaja" in the message cancels it (threat idioms)
    means: bool = False  # names a method or a plan: imminent
    other_actor: bool = False  # only counts when someone other than the writer does it
    context: re.Pattern[str] | None = None  # the message must also say this somewhere


_INTENT_WORDS = (
    "want|wants|wanted|wanna|wana|wan|tryna|trying|try|going|gonna|goin|finna|bout|about|ready|"
    "plan|planning|need|should|might as well|thinking about|thinking of|thinkin bout|thinking bout|"
    "think about|thought about|considering|gotta|deserve|wish i could|rather|would rather"
)
_INTENT = f"(?:{_INTENT_WORDS})"
# "im ending it", "just end it": too loose for "die" ("im dead"), right for ending one's life.
_END_INTENT = f"(?:{_INTENT_WORDS}|im|just|ill|will|imma|ima|feel like|feeling like|felt like)"
_PARTNER = (
    r"(?:boyfriend|bf|husband|hubby|ex|ex ?husband|ex ?boyfriend|ex ?wife|ex ?girlfriend|"
    r"girlfriend|gf|wife|partner|baby ?dadd?y|bd|baby ?mama|bm|fiance|fiancee|old man|old lady|"
    r"girl|man|boo|bae|step ?dad|step ?father|step ?mom|dad|father|brother in law|"
    r"esposo|esposa|novio|novia|marido|mujer|pareja|padrastro|suegro|suegra|cunado)s?"
)
_REFLEXIVE = r"(?:my ?self|mysef|myslef|meself|him ?self|her ?self|them ?selves|them ?self)"
_DRUGS = (
    r"(?:pills|bars|xans|xanax|percs?|percocets?|tabs|meds|medication|medicine|seroquel|oxy\w*|"
    r"fent\w*|pastillas|pildoras|stuff)"
)
_WEAPON = (
    r"(?:guns?|pistols?|knife|knives|machetes?|weapons?|blades?|strap|glocks?|rifles?|shotguns?)"
    r"(?! (?:license|permit|charge|case|rights|for (?:work|my job)))"
)
_HIT_VERBS = (
    r"(?:hits?|hitting|beats?|beat|beating|punch(?:ed|es|ing)?|slap(?:ped|s|ping)?|chok(?:ed|es|ing)|"
    r"strangl\w*|kick(?:ed|s|ing)?|push(?:ed|es|ing)?|shov\w*|stab\w*|burn(?:ed|s)?|drag(?:ged|s)?|"
    r"smack(?:ed|s)?|bit|bites|attack(?:ed|s|ing)?|be (?:choking|hitting|beating))"
)

_RULES: Final[tuple[_Rule, ...]] = (
    # --- suicide / self-harm: explicit intent ---------------------------------------------------
    _Rule(
        SUICIDE,
        "high",
        _rx(
            r"\b(?:kill|killing|kil|kll|off|offing|hang|hanging|shoot|shooting|drown|drowning|poison|"
            rf"poisoning|suffocate|overdose|od|unalive|unaliving|end) {_REFLEXIVE}\b(?! laugh| lol| lmao)"
            r"|\bunaliv\w*\b"
        ),
    ),
    _Rule(SUICIDE, "high", _rx(r"(?<!\d\s)\bkms\b(?! away)")),
    _Rule(
        SUICIDE,
        "high",
        _rx(
            r"\b(?:suicid\w*|sucid\w*|suicd\w*|suiside\w*|suiciad\w*|sewerslide)\b"
            r"(?! (?:watch|prevention|hotline|line|lifeline|awareness|class|program|training|poster"
            r"|rate|rates|squad|door|statistics|stats))"
        ),
    ),
    _Rule(
        SUICIDE,
        "high",
        _rx(
            rf"\b{_INTENT} (?:really |honestly |literally |seriously |kinda |lowkey |fr |just )*"
            r"(?:to )?(?:die|be dead|not exist|not be alive|stop existing|(?:go )?(?:to )?sleep forever|"
            r"go to sleep and not wake up|never wake up|not wake up|overdose|od|overdosing|oding)\b"
            r"(?! of| from| laughing| for| in (?:a|this|that|the) (?:warehouse|job|place|halfway)"
            r"| (?:my|his|her|your) (?:hair|beard|clothes|shirt))"
        ),
    ),
    _Rule(
        SUICIDE,
        "high",
        _rx(
            rf"\b{_END_INTENT} (?:to )?(?:end|ending|finish|take) (?:it|it all|everything|things|"
            r"my life|my own life|this life|mine|his life|her life|my self)\b(?! with| between| off)"
            r"|\b(?:end|ending) it all\b|\b(?:end|ending|take|taking) my (?:own )?life\b"
            # Not "im out for good": people say that about release.
            r"|\b(?:i want|i wanna|i wana|i need|be|ill be|i will be) (?:out|gone) for good\b"
            r"|\bon purpose\b(?= [^.?!]{0,20}\b(?:pills|od|overdos))"
        ),
    ),
    _Rule(
        SUICIDE,
        "high",
        _rx(
            r"\b(?:dont|do not|doesnt|does not|no longer|dont even|dont really|didnt) "
            r"(?:want|wanna|wana|wish) (?:to )?(?:live|be alive|exist|wake up|be around|be here|"
            r"be on this earth)\b(?! with| in | at | there| near| by| w | on time| early)"
            r"|\b(?:didnt|dont) exist anymore\b|\brather (?:be )?dead\b|\brather die\b"
            r"|\bwhy (?:should|do|would|am) i (?:even |still )?(?:be alive|live|keep living|stay alive|alive|"
            r"bother living|wake up)\b|\bsleep and (?:never|not) wake(?: up)?\b|\bnever wake up again\b"
            r"|\b(?:go |be )?with (?:my )?\w+ in heaven\b|\bjoin my \w+ in heaven\b"
        ),
    ),
    # --- suicide: passive ideation, hopelessness ------------------------------------------------
    _Rule(
        SUICIDE,
        "elevated",
        _rx(
            r"\bwhats? (?:even )?the point(?: of (?:living|life|anything|it all|going on|me|being alive|"
            r"trying anymore)| anymore| no more| in living| in anything)?(?= ?(?:[.!?,]|$))"
            r"|\b(?:no|aint no) (?:point|reason) (?:for me )?(?:in |to )?(?:living|live|keep living|"
            r"keep going|go on|going on|be alive|being alive|wake up)\b"
            r"|\b(?:think|thinking|thought|thoughts) (?:about|of|bout) (?:dying|death|being dead)\b"
            r"|\bnothing (?:left )?to live for\b|\b(?:life|living) (?:aint|isnt|is not|not|no longer) worth (?:living|it)\b"
            r"|\b(?:cant|can not|dont think i (?:can|will)|not gonna|wont) (?:survive|make it through) "
            r"(?:another|the|this|one more) (?:night|day)\b"
            r"|\b(?:cant|can not|dont know if i can|how much longer i can|how long i can) "
            r"(?:keep going|go on|keep living|do this)\b(?! to | at )"
        ),
    ),
    _Rule(
        SUICIDE,
        "elevated",
        _rx(
            r"\b(?:better off (?:without|w/?o|w/out|sin) me|better (?:off )?without me in it|better off if i (?:was|were|wasnt|"
            r"werent) (?:dead|gone|here|around)|better off dead|(?:nobody|no one|noone) (?:would|will|gonna|"
            r"is gonna) (?:even )?(?:care|notice|miss me)|wont be (?:around|here) (?:much )?(?:longer|anymore|"
            r"tomorrow)|(?:dont|do not|not) plan(?:ning)? on being (?:around|here|alive)"
            r"(?= ?(?:[.!?,]|$|(?:next|much|after|by|anymore|tomorrow|for (?:long|much longer))\b))|(?:nobody|no one|noone) cares if i (?:live or )?die|(?:a )?burden (?:to|on) "
            r"(?:everyone|everybody|my family)|(?:im|i am|i feel like|feel like|feeling like) (?:just |only |such )?(?:a|an|the) "
            r"(?:\w+ )?burden(?! (?:of|for|with) (?:proof|the))(?! (?:on|to|for) (?:my|the|her|his) (?:po|parole|case|boss|"
            r"teacher|supervisor|officer|worker))|disappear (?:for good|forever)|giv(?:e|ing) up on (?:life|living)|"
            r"tired of (?:living|life|being alive)|done with (?:life|living|everything|it all)|"
            r"done with all (?:this|of this|of it)(?= ?(?:[.!?,]|$))|ill be gone (?:by|before|soon)|cant (?:do|take) "
            r"(?:this|it) (?:no more|anymore)|want (?:it|the pain|everything) (?:all )?to stop|"
            r"so done with everything|hate my life|want out)\b"
            r"|\bwish i (?:was|were) (?:dead|never born|gone)\b|\bwish i (?:never|didnt|wouldnt) "
            r"(?:woke|wake|been born|was born)\b|\bhave a plan\b(?= ?(?:[.!?,]|$))"
        ),
    ),
    # Wishing they had not survived (LABELING.md names it): "wish i didnt make it", "wish they had let me die",
    # "wish the overdose had finished me", "ojala me hubiera muerto". The survived event is in the past, so
    # past-time markers do not cancel it; a medical hit on that past event yields to it (suicide ranks first).
    _Rule(
        SUICIDE,
        "elevated",
        _rx(
            r"\bwish(?:ed)? i (?:didnt|did not|hadnt|had not|never|wouldnt|would not) (?:make it|made it|survive|"
            r"survived|live|lived|come back|came back|pull through|pulled through)\b"
            r"|\bwish(?:ed)? (?:they|he|she|you|u|someone|somebody|the \w+|them)d? (?:had |would have |wouldve |woulda )?"
            r"(?:just )?(?:let me die|left me (?:to die|there)|not saved me|never saved me|didnt save me|"
            r"hadnt saved me)\b"
            r"|\bwish(?:ed)? (?:it|that|the (?:overdose|od|wreck|crash|fight|bullet|stabbing|shot|fall))d? "
            r"(?:had |would have |wouldve |woulda )?(?:finished|killed|taken|got) me\b"
            r"|\bojala (?:me hubiera muerto|me hubieran dejado morir|no hubiera sobrevivido|no me hubieran salvado|"
            r"me hubiera matado)\b|\b(?:quisiera|quisiese) no haber sobrevivido\b"
            r"|\bshould (?:have|of|ve|a) died\b|\bdebi (?:haberme muerto|de morir|morir)\b"
        ),
        historical=False,
    ),
    # --- self-harm and means --------------------------------------------------------------------
    _Rule(
        SUICIDE,
        "high",
        _rx(
            r"\b(?:cut|cutting|cuttin|burn|burning|hurt|hurting|harm|harming|starve|starving|slit|slitting|"
            r"slice|slicing) "
            rf"(?:{_REFLEXIVE}|my wrists?|my arms?|my legs?|my throat)\b"
            r"|\b(?:slit|slitting|slice|slicing|cut|cutting) (?:my )?wrists?\b"
            r"|\b(?:been|started|start|keep|still) cutting\b|\bcutting again\b|\bself ?harm\w*\b"
        ),
    ),
    _Rule(
        SUICIDE,
        "imminent",
        _rx(
            r"\b(?:saving|saved|save|stockpil\w*|hoarding|collecting) (?:up )?(?:my |all my |these |the )?"
            r"(?:pills|meds|medication|medicine|pastillas)\b"
            r"|\bhow many (?:pills|\w+ pills|bars) (?:does it take|would it take|to die|to not wake up|would kill)"
            r"|\b(?:easiest|painless|quickest|best|fastest) way to (?:die|go|kill)\b"
            r"|\bhow (?:to|do i|can i|do you) (?:kill|hang|off) (?:my ?self|yourself)\b"
            r"|\b(?:got|have|bought|found|tied|made) (?:a |the |my )?(?:rope|noose)\b|\bnoose\b"
            r"|\bjump(?:ing)? (?:off|from) (?:the|a|that) (?:bridge|overpass|building|roof|parking garage|"
            r"garage|balcony|cliff)\b"
            r"|\b(?:jump|step|walk) in front of (?:a|the) (?:train|truck|bus|car)\b"
            r"|\bdrive (?:my |the )?(?:car|truck)? (?:into|off) (?:a|the) (?:wall|tree|bridge|pole|river|traffic)\b"
            r"|\b(?:sitting|standing|sittin|standin) on (?:the|a|this|that) (?:bridge|ledge|roof|edge|rail|railing)\b"
            r"|\b(?:run|running|walk|walking|jump|jumping|step|stepping) (?:into|in) (?:traffic|the highway|the freeway)\b"
            r"|\b(?:ways|way|how|methods?) to (?:die|kill (?:my ?self|yourself)|end (?:it|my life))\b"
            r"|\b(?:razor|blade|knife) to my (?:arm|wrist|wrists|leg|legs|skin|throat)\b"
            r"|\bblow (?:my|his|her|their) (?:brains|head) (?:out|off)\b|\bbullet (?:in|into|through) (?:my|his|her) head\b"
            r"|\b(?:take|taking|swallow\w*) (?:all|the whole bottle of|a bunch of) (?:of )?(?:my |the )?"
            rf"{_DRUGS} (?:all )?at once\b"
            r"|\b(?:gun|pistol|rope|pills)\b[\w\s]{0,30}?\b(?:im done|im finished|its over|say goodbye|goodbye)\b"
            r"|\b(?:loaded (?:the |my |a )?(?:gun|pistol)|(?:gun|pistol) (?:is )?loaded)\b"
            r"|\b(?:tell|let) my (?:kids|family|mom|mama|daughter|son|wife|girl) (?:that )?i love (?:them|her|him)\b"
            r"|\bgiv(?:e|ing|en|ave) away (?:all )?(?:my|his|her) (?:stuff|things|shit)\b"
            r"|\b(?:wrote|writing|left|posted) (?:a )?(?:suicide )?(?:note|letters?|goodbye)\b"
            # A note left on the person's car or door is someone else's message (a threat rule reads it).
            r"(?! (?:on|in|at|under) (?:my|the|his|her|our) (?:car|door|truck|windshield|window|porch|mailbox|desk|locker))"
            # A goodbye said as the last message (LABELING.md: goodbye messages), not "my last message for today".
            r"|\b(?:the|my) last (?:message|text|msg) (?:i (?:ll |will |am gonna |ever )?(?:send|write)|(?:to|for) anyone|ever)\b"
            r"|\bthis is my last (?:message|text|msg)\b(?! (?:for|today|tonight|til|until|till|before))"
            r"|\blast (?:message|text|msg)\b[^?]{0,20}\bthanks? (?:you )?for (?:trying|everything)\b"
            r"|\bultimo mensaje\b[^?]{0,20}\bgracias por (?:intentar|todo)\b",
        ),
        means=True,
    ),
    # --- suicide, Spanish -----------------------------------------------------------------------
    _Rule(
        SUICIDE,
        "high",
        _rx(
            r"\b(?:me quiero|me voy a|quiero|voy a|ganas de|pienso en|pensando en|deseo|prefiero) "
            r"(?:morir|morirme|matarme|suicidarme|quitarme la vida|desaparecer para siempre|aventarme|tirarme)\b"
            r"(?! de (?:ganas|hambre|risa|sueno|calor|frio|viejo|vieja|anciano))"
            r"|\b(?:me quiero|me voy a|mejor me|ya me quiero) (?:matar|morir|aventar|tirar)\b(?! de (?:ganas|hambre|risa))"
            r"|\bmejor me mato\b|\bme mato(?= (?:hoy|ya|esta noche|ahorita)\b| ?$)"
            r"|\b(?:quitarme|quitarse|quitar) la vida\b|\bacabar con (?:todo|mi vida)\b"
            r"|\bterminar con (?:todo|mi vida)\b|\bmejor (?:estaria )?muert[oa]\b"
            r"|\bcortarme las venas\b|\bme voy a cortar\b"
            r"|\bse (?:quiere|va a) (?:matar|suicidar)\b|\bquiere (?:matarse|suicidarse|morirse)\b"
            r"|\b(?:quisiera|ojala|ojala que|deseo|quiero) (?:estar muert[oa]|estuviera muert[oa]|morir|morirme)\b"
            r"(?! de (?:ganas|hambre|risa|viejo|vieja))"
            r"|\b(?:ya )?no (?:quiero|kiero|qiero|deseo) (?:estar|seguir) en este mundo\b"
            r"|\b(?:ya )?no (?:quiero|kiero|qiero|deseo|quiere) (?:seguir )?(?:vivir|viviendo|existir|estar aqui)\b"
            r"(?! (?:con|en|aqui con|alla|cerca|ahi))"
        ),
    ),
    _Rule(
        SUICIDE,
        "elevated",
        _rx(
            # "ya no aguanto la chamba jaja" is about the job: a named burden with a laugh is venting.
            r"\bya no aguanto\b(?! a (?:los|las|el|la|mi|mis|este|esta|estos|estas|ese|esa|esos|esas) \w"
            # ... unless the writer then says they will hurt that person (LABELING.md: a threat to others).
            r"(?![^\n]{0,140}\b(?:pistola|cuchillo|balazo|apunal\w*|matar\w*|mato|rompo|golpe\w*|pego|llave|arma|navaja)\b))"
            # ... or about the parole rules, the paperwork or a queue named after it ("ya no aguanto el parole").
            r"(?! (?:el|la|los|las|mi|mis|este|esta|tanto|tanta) (?:parole|parol|probation|probatoria|po|oficial|citas?|"
            r"reportes?|papeleo|tramites?|fila|filas|ruido|trafico|calor|frio)\b)"
            r"(?! (?:la|el|mi|este|esta|los|las) (?:chamba|jale|trabajo|turno|calor|frio|dolor|espalda|"
            r"pies|renta|escuela|clase|trafico|fila|jefe|jefa)\b[^.?!]{0,40}\b(?:jaja\w*|jeje\w*|lol|xd)\b)|\bno (?:le )?(?:veo|encuentro) (?:el )?sentido (?:a|de) (?:la vida|vivir|nada)\b"
            r"|\bla vida no tiene sentido\b|\bno vale la pena vivir\b|\bpara que (?:seguir )?vivir\b"
            r"|\bnadie me (?:extranaria|va a extranar|notaria)\b|\bsi me muero\b(?! de)"
            r"|\b(?:estarian|estarias|estaria|vivirian) mejor sin mi\b"
            r"|\b(?:me )?(?:canse|cansad[oa]|hart[oa]) de (?:vivir|la vida)\b"
        ),
    ),
    _Rule(
        SUICIDE,
        "imminent",
        _rx(
            r"\b(?:pastillas|pildoras) (?:guardadas|juntadas)\b|\b(?:guardando|juntando) (?:las |mis )?"
            r"(?:pastillas|pildoras)\b|\b(?:aventar|aventarme|tirarme) (?:del|de un|al) (?:puente|edificio|tren)\b"
            # A means made ready ("ya tengo la soga lista"), self-cutting said in Spanish ("me corto pa sentir algo").
            r"|\b(?:la|una|mi) (?:soga|cuerda) (?:ya )?(?:lista|preparada|amarrada|colgada)\b"
            r"|\bme (?:corto|sigo cortando|estoy cortando|he cortado|cortaba otra vez)\b(?= (?:pa|para|otra vez|de nuevo|cada|seguido|mas|los brazos|las piernas|las munecas|el brazo|la pierna|las venas)\b)"
            r"|\bmi ultimo (?:mensaje|texto)\b(?! (?:de|del|por|para) (?:hoy|la noche|el dia|ahorita))"
            r"|\bya no voy a estar(?: aqui| por aqui)?(?= ?(?:[.!?,]|$|para (?:cuando|entonces|el)|mucho tiempo))"
        ),
        means=True,
    ),
    # --- medical emergency / overdose -----------------------------------------------------------
    _Rule(
        MEDICAL,
        "imminent",
        _rx(
            r"\b(?:not|isnt|aint|barely|stopped|cant|cannot|struggling to|trouble) breath\w*"
            r"|\b(?:wont|will not|doesnt|isnt|not|cant|can not) (?:wake (?:him|her|them) up|waking up|"
            r"responding|respond|moving|move)\b|\bwont wake up\b(?! (?:on time|in time|early|for))"
            r"|\bpassed out\b|\bunconscious\b|\bunresponsive\b|\bturning blue\b|\b(?:hes|shes|is) blue\b"
            r"|\blips (?:are |r )?(?:turning )?blue\b|\bfoaming at the mouth\b|\bthroat (?:is )?closing\b"
            r"|\bcollapsed\b|(?<!havent\s)(?<!hasnt\s)(?<!hadnt\s)(?<!not\s)(?<!never\s)\b(?:having|had|has) a (?:seizure|heart attack|stroke)\b"
            r"(?! in (?:\d+|two|three|four|five|a|over a|years|months|a long time|ages))|\bseizing\b"
            r"|\bconvulsing\b|\bchest (?:hurts|pain|is hurting)\b|\b(?:left )?arm (?:is |went )?numb\b"
            r"|\bbleeding (?:really |so |very |real |pretty )?(?:a lot|bad|badly|out|everywhere|alot|heavily)\b|\bblood everywhere\b|\b(?:got|been|im|i was just|"
            r"just got) (?:stabbed|shot)\b|\bno respira\b|\bno despierta\b|\bno (?:reacciona|responde|se mueve)\b"
            r"|\binconsciente\b|\bse desmayo\b"
            r"|\bcoughing (?:up )?(?:a little |some )?blood\b|\b(?:tosiendo|vomitando|escupiendo) sangre\b|\bvomiting blood\b"
            r"|\bhurts to breathe\b|\bme duele (?:al )?respirar\b|\b(?:ribs?|costillas?) (?:are |is )?(?:broken|broke|rotas?)\b"
            r"|\bbroken ribs?\b|\b(?:had|having|have had|ive had|tuve|he tenido) (?:two|2|three|3|several|multiple|dos|tres|varias) "
            r"(?:seizures|convulsiones)\b"
            # Someone (a child, often) got into medication or drugs: poison control or 911 now.
            r"|\b(?:got into|ate|swallowed|chewed on|chewed|se (?:comio|tomo|trago)) (?:some of |a few of |unas de |algunas de )?"
            r"(?:my|mis|his|her|the|las|los|sus|mi) (?:\w+ )?(?:pills|meds|medicine|medication|strips|suboxone|fentanyl|"
            r"methadone|gummies|pastillas|medicinas?|tiras|pildoras)\b"
        ),
        negatable=False,
    ),
    _Rule(
        MEDICAL,
        "imminent",
        _rx(
            r"\b(?:overdos\w*|oded|oding|ods|od|sobredosis)\b"
            r"(?! on (?:coffee|caffeine|sugar|candy|netflix|work|tacos|food)| (?:deaths?|rates?|statistics|"
            r"prevention|training|kits?|class|awareness|numbers))"
            r"|\b(?:took|taken|swallowed|se tomo|tomo|me tome) (?:like |about |around )?(?:a whole bottle|"
            r"a bottle|too many|way too many|too much(?! time)|way too much|"
            rf"(?:all|a bunch|a handful|\d+) (?:of )?(?:my |his |her |the |them |those |these )?(?:\w+ )?{_DRUGS}|"
            r"(?:muchas|un monton de|todas (?:las|mis)) (?:pastillas|pildoras))\b"
        ),
        joke_sensitive=True,
    ),
    # --- immediate danger -----------------------------------------------------------------------
    _Rule(
        DANGER,
        "imminent",
        _rx(
            r"\b(?:shot|shooting|shoot|shots) at (?:me|us|the house|my house|my car|the car)\b"
            r"|\bshots fired\b|\b(?:theyre|they are|they|someone|somebody|people|ppl|dudes|guys)(?: is| are)? shooting\b"
            r"(?! (?:hoops|pool|ball|dice|a video|a movie|a film|photos|pictures|my shot|his shot|her shot|their shot|up))"
            r"|\bbalacera\b|\bdisparando\b"
            r"|\bim hiding\b|\bhiding from (?:him|her|them|someone)\b|\bme estoy escondiendo\b"
            r"|\bgot jumped\b|\b(?:house|apartment|room|building|place|kitchen|trailer) (?:is )?(?:on fire|burning)\b"
            r"|\bhay un incendio\b|\bse esta quemando\b|\bfire in (?:my|the|our) (?:building|house|apartment|apt|room)\b"
        ),
    ),
    # Someone forcing the door: a partner or ex doing it is domestic violence (LABELING.md), anyone else danger.
    _Rule(
        _THREAT,
        "imminent",
        _rx(
            r"\b(?:someone|somebody|some ?one|they|theyre|he|she|a guy|people|dudes|is|are) (?:just )?(?:broke|"
            r"is breaking|are breaking|breaking|trying to break|tried to break|banging on|kicking) "
            r"(?:in(?:to)?|my door|the door)\b"
            r"|\b(?:tratando de|quieren|quiere) (?:entrar|meterse) (?:a|en) (?:mi|la) casa\b|\bse metieron a mi casa\b"
            r"|\b(?:trying|tryna|tried|keeps? trying) to (?:open|get in(?:to)?|break (?:in(?:to)?)?|kick in) "
            r"(?:my|the) (?:door|window|house|apartment|apt|room)\b"
            r"|\b(?:kick|kicking|kicked|break|breaking|bust|busting) (?:my|the) (?:door|window) (?:in|down|open)\b"
        ),
    ),
    _Rule(
        _THREAT,
        "imminent",
        _rx(
            rf"\b(?:with|pulled|pulling|pointing|waving|holding|has|got|pulled out|is holding) "
            rf"(?:a |his |her |their |the )?{_WEAPON}\b"
            r"|\bcon (?:una|un) (?:pistola|cuchillo|arma|navaja)\b"
        ),
        other_actor=True,
    ),
    _Rule(
        _THREAT,
        "high",
        _rx(
            r"\b(?:gonna|going to|goin to|will|wants? to|trying to|tryna|finna|would|hed|shed|theyd|hell|"
            r"shell|theyll|threatened to|threatening to|threatens to|said hes|said shes|said theyre|"
            r"swore to|saying theyre|saying hes) (?:come )?(?:kill|murder|stab|shoot|hurt|beat|jump) (?:me|us)\b"
            r"(?! (?:a text|a message|an email|a call|a line|a dm|up))"
            r"|\b(?:me|nos) (?:quiere|quieren|va a|van a|amenazo con|amenazaron con) (?:matar|golpear|lastimar)\b"
            r"|\bamenazo con matarme\b|\bthreat\w* (?:me|my life)\b|\bme (?:estan |esta )?amenazando\b"
            r"|\b(?:said|saying|says|told me) (?:that )?(?:im|i am|im gonna be|ill be) (?:dead|a dead man)\b"
        ),
        joke_sensitive=True,
    ),
    _Rule(
        _THREAT,
        "high",
        _rx(
            r"\b(?:is|are|keeps?|been|kept|started|someone|somebody|guy|dude|he|she|they|ex) "
            r"(?:following|stalking|chasing) me\b(?! (?:on|online|around the store))"
            r"|\b(?:being|getting|been) (?:followed|stalked|chased|hunted)\b|\bfollowed (?:me )?(?:by|home)\b"
            r"|\bme (?:estan|esta) siguiendo\b|\bme persiguen?\b"
            r"|\b(?:scared|afraid|terrified) of (?:him|her|them)\b"
            r"|\b(?:left|put|leaves|stuck) (?:a |another )?note (?:on|in|at|under) (?:my|the) (?:car|door|truck|windshield|window|"
            r"porch|mailbox)\b(?= [^.?!]{0,20}\b(?:saying|that said|that says|said|says|reading)\b)"
            r"(?![^.?!]{0,80}\b(?:park\w*|tow\w*|trash|hoa|rent|lease|noise)\b)"
        ),
    ),
    # --- domestic violence ----------------------------------------------------------------------
    _Rule(
        DV,
        "high",
        _rx(
            rf"\bmy {_PARTNER}\b[^.?!]{{0,60}}?\b(?:{_HIT_VERBS} me(?! (?:out|off|up (?:for|about|when)))|beat me up|beat my ass|"
            r"thr(?:ew|ows) \w+(?: \w+)? at me|puts? (?:his|her) hands on me|abus\w* me|threat\w* me|"
            r"lock(?:s|ed)? me|wont let me (?:leave|go)|hurts? me|hurting me|finish the job|use the gun|"
            r"put (?:a|the) gun to my|(?:slam\w*|smash\w*|bang\w*|grab\w*|pull\w*|threw|throws) my (?:head|face|"
            r"neck|hair|body|throat))\b"
            rf"|\b(?:he|she|hes|shes|they)\b(?:\s+\w+){{0,3}}?\s+{_HIT_VERBS} me\b(?! (?:out|off|up (?:for|about|when)))"
            r"|\b(?:me|nos) (?:pega|pego|golpea|golpean|golpeo|maltrata|ahorca|ahorco|encierra|lastima)\b"
            # "me pegó la gripa" is catching the flu, not being hit.
            r"(?! (?:la|el|una|un) (?:gripa|gripe|covid|resfriado|virus|calor|sol|flu|tos|infeccion|chorro|susto)\b)"
            rf"|\b(?:scared|afraid|terrified) of my {_PARTNER}\b"
            rf"|\bmy {_PARTNER}\b[^.?!]{{0,40}}?\b(?:wont|doesnt|does not|will not) let me (?:have|see(?! (?:my|our|the) (?:son|daughter|kids?|child|children|baby|boys?|girls?))|leave|go|talk|use|"
            r"work|call|keep)\b"
            r"|\b(?:victim of|experiencing|going through|suffering) (?:domestic violence|dv|abuse)\b"
            # Watching the person's messages (LABELING.md names it), the partner named in the same sentence.
            rf"|\b(?:my|mi) {_PARTNER}\b[^.?!]{{0,50}}?\b(?:reads?|checks?|goes through|tracks?|lee|revisa|checa|me tiene)"
            r" (?:\w+ ){0,2}(?:my (?:texts|messages|phone|dms)|mis (?:mensajes|textos)|el (?:celular|cel|telefono) checado)\b"
            r"(?![^.?!]{0,60}\b(?:i asked|i told (?:him|her) to|le pedi|we agreed|acordamos)\b)"
        ),
        negatable=False,
    ),
    # A partner or ex who keeps turning up at the person's home or job, or lets them know he knows where they live
    # (LABELING.md's stalking by a partner; a protective order he ignores).
    _Rule(
        DV,
        "high",
        _rx(
            r"\b(?:my|mi) (?:\w+ )?(?:ex|ex ?boyfriend|ex ?husband|ex ?wife|ex ?girlfriend|boyfriend|husband|wife|girlfriend|"
            r"baby ?dadd?y|bd|expareja|ex pareja|exnovio|ex novio|exesposo|ex esposo|esposo|novio|marido|pareja)\b"
            r"[^.?!]{0,100}?\b(?:keeps? showing up|(?:been|is|started) showing up|shows up at my|keeps? coming (?:to|by|around)|"
            r"(?:sigue|anda) (?:llegando|viniendo|apareciendo)|se (?:sigue )?aparec\w* (?:en|a)|"
            r"(?:sabe|knows) (?:donde|where) (?:vivo|i live|i stay|trabajo|i work|me quedo)|"
            r"(?:me )?va a (?:ir a )?(?:visitar|buscar)me?|(?:is|hes|been) watching me)\b"
        ),
        negatable=False,
    ),
    # --- sexual assault -------------------------------------------------------------------------
    # Not cancelled by past-time markers: RAINN supports survivors whenever it happened.
    _Rule(
        ASSAULT,
        "high",
        _rx(
            r"\b(?:raped|rapped|rapd|rape|raping|rapes|molested|molesting|molests) (?:me|us)\b"
            r"|\b(?:was|been|got|get|getting|being) (?:\w+ (?:and|then) )?(?:raped|rapped|molested|sexually (?:assaulted|abused)|"
            r"assaulted sexually|abused sexually)\b|\b(?:assaulted|abused) (?:me )?sexually\b"
            r"|\b(?:he|she|they|someone|somebody) raped\b|\bsexually (?:assaulted|abused|harassed) me\b"
            r"|\bforced (?:me|himself|herself) (?:to (?:have sex|do (?:sexual|sex) (?:stuff|things)|"
            r"do (?:stuff|things) sexually|perform|touch|suck)|on me)\b"
            r"|\bforced me to do \w+ (?:stuff|things) sexually\b|\bforced me to do sexual\b"
            r"|\b(?:made|make|makes|making) me (?:have sex|do sexual|do sex)\b"
            r"|\b(?:made|make|makes|making|forced|force|forces) me (?:do|perform) (?:sexual )?(?:stuff|things|acts?|favors) "
            r"(?:to|for|with|on) (?:him|her|them)\b"
            r"|\b(?:put|slipped) something in my drink\b|\bdrugged me\b|\bspiked my drink\b"
            r"|\btouched me (?:without|when i said no|after i said no|and i (?:said|told) (?:him|her) (?:to )?stop|"
            r"down there|inappropriately)\b|\b(?:tries|tried|trying|keeps trying|keep trying) to touch me\b"
            r"|\bme (?:violaron|violo|viola|violan|abuso sexualmente|abusaron sexualmente|forzo|forzaron)\b"
            r"|\babus(?:o|aron) de mi\b|\bme (?:obligo|obligaron|forzo) a (?:tener relaciones|tener sexo|hacer cosas)\b"
            r"|\bme toco sin (?:mi )?permiso\b"
        ),
        negatable=False,
        historical=False,
    ),
    # An exam asked for after an assault that just happened: the window for evidence is now.
    _Rule(
        ASSAULT,
        "high",
        _rx(
            r"\b(?:sexual assault|rape|sane) (?:exams?|kits?|tests?)\b"
            r"|\b(?:examen|examenes|kit|prueba)s? (?:de|por|despues de una?) (?:violacion|agresion sexual|abuso sexual)\b"
        ),
        negatable=False,
        context=_rx(
            r"\b(?:happened|it was|paso|fue) (?:\w+ )?(?:yesterday|last night|today|this morning|ayer|anoche|hoy|esta manana)\b"
        ),
    ),
    # --- housing emergency ----------------------------------------------------------------------
    _Rule(
        HOUSING,
        "elevated",
        _rx(
            r"\b(?:no ?where|nowhere|no place|noplace|no home|not anywhere|dont have (?:any ?where|a place|"
            r"no ?where)|got no (?:place|where)|have no (?:place|where)|aint got no ?(?:where|place)) "
            r"(?:else )?(?:to )?(?:go|sleep|stay|live|crash|lay)\b"
            r"|\b(?:im|i am|were|we are|been|still|gonna be|going to be|ill be|i will be|currently|now) "
            r"(?:sleeping |living |staying )?(?:under (?:a|the) bridge|on the streets?|homeless)\b(?!\?)"
            r"|\b(?:sleeping|sleep|staying|living|crashing|stay|live) (?:under (?:a|the) (?:bridge|overpass)|"
            r"(?:in|on) (?:the|my|a) (?:streets?|car|truck|park|bench|woods|sidewalk)|outside|"
            r"at the (?:bus|train|greyhound) station|in a tent)\b"
            r"|\bwhere (?:can|do|should|will|could) i (?:sleep|stay)(?: at)?(?: tonight| tonite| rn)\b"
            r"|\bwhere do i sleep\b|\bneed (?:a bed|a place to (?:sleep|stay|crash)|somewhere to (?:sleep|stay)) "
            r"(?:tonight|tonite|rn|today|asap|now)\b|\bshelters? (?:is |are )?(?:full|at capacity)\b"
            r"|\b(?:kicked|put|threw) (?:me|us) out\b(?! of (?!(?:the |my |his |her |our )?(?:house|home|"
            r"apartment|apt|place|halfway|shelter|crib|room)))"
            r"|\bkicked out of (?:the |my |our )?(?:house|home|apartment|apt|place|halfway|shelter|crib|room)\b"
            r"|\b(?:got|been|getting|just got) evicted\b|\bchanged the locks\b"
            r"|\bwont let me (?:stay|sleep|live|come back)\b"
            r"|\b(?:got|been|was|just got|getting|get) kicked out\b(?! of (?!(?:the |my |his |her |our )?(?:house|home|"
            r"apartment|apt|place|halfway|shelter|crib|room)))"
            r"|\bno tengo (?:donde|a donde|adonde|lugar para) (?:dormir|quedarme|vivir|ir)\b"
            r"|\b(?:estoy|estamos|vivo|vivimos|duermo|dormimos|durmiendo|dormir|quedandome|viviendo|me quede|nos quedamos) "
            r"(?:\w+ )?(?:en la calle(?=\s*(?:$|[,.!?;:)]|(?:desde|hace|con|porque|pq|xq|y|e|o|pero|sin|esta|este|hoy|ahorita|ahora|ya|otra|de nuevo|todavia|aun|manana|por|no|q|que|ni|mi|a|en|bien|solo|sola|solito|solita|toda|todo|todos|cuando|como|sin|atras|detras|cerca|enfrente|frente|junto|al|afuera|abajo|bajo)\b))|en el parque|en (?:mi|el|un) (?:carro|coche|troca)|debajo del puente|afuera)\b"
            r"|\bme (?:corrieron|echaron|sacaron|corrio|echo|saco) de (?:la casa|mi casa|la casa de)\b"
            r"|\bme (?:corrieron|echaron|sacaron|corrio|echo|saco) del? (?:cuarto|departamento|depa|apartamento|traila|"
            r"lugar|hotel|motel|halfway|casa de transicion)\b"
            r"(?![^.?!]{0,60}\b(?:ahora vivo|ya vivo|ahora rento|ya tengo (?:cuarto|casa|donde))\b)"
        ),
    ),
    # Idioms on their own ("talked to my PO, got nowhere"): a crisis only next to a lost bed.
    _Rule(
        HOUSING,
        "elevated",
        _rx(
            r"\bwhere (?:can|do|should|could) i go(?: now| tonight| tonite| rn)?(?= ?(?:[.!?,]|$))"
            r"|\b(?:i |we )?(?:got|have|had) nowhere(?= ?(?:[.!?,]|$))"
        ),
        context=_rx(
            r"\b(?:kicked|evicted|locked out|put out|threw|bed|beds|shelter|sleep|sleeping|tonight|tonite|"
            r"streets?|homeless|outside)\b"
        ),
    ),
)

_NEGATION_BEFORE: Final = re.compile(
    r"(?<!why )\b(?:not|never|dont|do not|didnt|wont|will not|wouldnt|would never|aint|no|nunca|ni|"
    r"nobody|nobodys|no one|noone|nadie|"
    r"jamas|tampoco|nothing about|no longer)"
    r"(?:\s+(?:really|even|ever|gonna|going|to|want|wanna|trying|try|planning|plan|thinking|think|"
    r"about|of|feel|feeling|be|am|estoy|pensando|en|quiero|voy|a|me|have|has|had|any|thoughts|having|"
    r"seriously|actually|like))*\s*$"
)
# Past-time markers inside the hit's clause: history, not a crisis now.
_HISTORICAL: Final = re.compile(
    r"\b(?:used to|use to|years ago|yrs ago|months ago|back in|back when|in (?:19|20)\d\d|"
    r"last (?:year|month)|when i was (?:a kid|young|little|younger|\d+)|as a (?:kid|child|teen)|"
    r"in my (?:teens|\d0s|twenties|thirties|forties)|before i went (?:in|to prison|to jail|down)|"
    r"back in the day|\d+ (?:years|yrs|months) clean|clean (?:for|from that)|hace (?:anos|mucho(?! (?:frio|calor|viento|aire)))|"
    r"antes de (?:entrar|la carcel|caer)|cuando era (?:nino|nina|joven|chavo|chava)|cuando tenia \d+|"
    r"cuando (?:estaba|estuve) (?:en|preso|encerrado|adentro)|when i was (?:in|at|locked up|inside|locked)|"
    r"last (?:summer|spring|fall|winter)|(?:el|la) (?:ano|verano|invierno|primavera) pasad[oa]|"
    r"hace (?:\d+|dos|tres|cuatro|cinco|muchos|varios) (?:anos|meses)|hace (?:mucho )?tiempo|en (?:el )?(?:19|20)\d\d|"
    r"while i was (?:locked up|inside|in prison|in jail|in tdcj|gone|away|down|incarcerated)|"
    r"mientras (?:yo )?(?:estaba|estuve) (?:preso|presa|encerrad[oa]|adentro|en la carcel|en el bote))\b"
)
_MEDICAL_HISTORICAL: Final = re.compile(
    r"\blast week\b|\bhace (?:una semana|un mes)\b|\blast time (?:i was )?(?:out|i got out)\b|\bbefore (?:prison|jail|i went in)\b"
    r"|\b(?:twice|three times|\d+ times|dos veces|tres veces)\b|\b(?:\d+|two|three|four|five) (?:yrs|years|months) sober\b"
    r"|\bantes de (?:la )?(?:prision|carcel|caer)\b|\bla (?:ultima|otra) vez que sal[ií]\b"
    r"|\b(?:died|se murio|murio|fallecio|passed away)\b"
)
# A screening question someone else asked ("my PO asked if I have thoughts of hurting myself").
_REPORTED_QUESTION: Final = re.compile(
    r"\basked (?:me )?(?:if|whether|about)\b|\bscreening\b|\bquestionnaire\b"
    # A doctor's words about the person's health ("doctor said with my liver i shouldve died inside").
    r"|\b(?:doctors?|doc|nurses?|medicos?|doctora?) (?:said|says|told me|dijo|me dijo|dice)\b"
)
_JOKE: Final = re.compile(
    r"\b(?:lol|lmao|lmfao|rofl|haha\w*|hehe\w*|jaja\w*|jk)\b|[\U0001F602\U0001F923\U0001F480\U0001F606\U0001F605]"
)
# Figures of speech LABELING.md names as not a crisis: the hit sits inside one of these.
_IDIOM: Final = re.compile(
    r"\bkill(?:ing|s)? (?:my ?self|me) (?:doing|doin|working|workin|at work|out here|trabajando|for \$?\d+|for cash|for peanuts)\b"
    r"|\bme (?:estoy|ando) matando (?:trabajando|en el jale|en el trabajo)\b|\bme quiero matar trabajando\b"
    r"|\b(?:mom|moms|mama|mamas|ma|mother|jefa|boss|supervisor|manager|po|parole officer|ama|abuela|"
    r"grandma|granny|cousin|prima|tia|aunt|teacher|sister|hermana|"
    r"fila|line|traffic|trafico|heat|calor|job|jale|class|clase)s?\b(?:(?! said| says| dijo| dice)[\w' ]){0,20}?"
    r"\b(?:gonna|going to|gon|finna|is gonna|will|va a|me va a) (?:kill|murder|matar) ?(?:me|us)?\b(?! (?:with|con|when|cuando))"
    r"|\b(?:me|i) (?:quiero|voy a|va a) morir(?:me)? de (?:coraje|verguenza|la verguenza|aburrimiento|risa|hambre|"
    r"ganas|sueno|calor|frio|nervios|pena|sed|vieja|viejo|cansancio|flojera|tristeza|envidia|la risa|"
    r"(?:la )?(?:emocion|alegria|felicidad|orgullo|ternura|ansiedad|desesperacion|impaciencia|curiosidad)|"
    r"(?:la |el |los )?(?:fila|cola|espera|linea|trafico|tarea|papeleo|tramites?|burocracia))\b"
    r"|\bkill(?:ing)? (?:my ?self|me) (?:at|in) (?:the )?(?:gym|practice|the weight pile)\b"
    r"|\b(?:heat|calor|monitor|brazalete|grillete|back|feet|knees?|pies|espalda|rodillas?|commute|wait|fila|line|"
    r"bills|rent|renta|shoes|boots)\b[\w' ]{0,15}\b(?:is|are|esta|estan|me esta|me estan) (?:killing|matando)\b"
    r"|\b(?:kids|hijos|ninos|exam|examen|test|math|matematicas|ged)\b(?:(?! said| says| dijo| dice)[\w' ]){0,20}?"
    r"\b(?:(?:gonna|going to|is gonna|are gonna) (?:kill|murder) (?:me|us)|(?:me va a|me van a) matar)\b"
    r"(?! (?:with|con|when|cuando))"
    r"|\b(?:got|get|getting|gettin|been) shot down\b"
    # "ay me va a matar mi jefa", the same idiom with its subject after the verb.
    r"|\b(?:me va a|me van a) matar (?:mi|mis|la) (?:jefa|jefita|ama|amá|mama|mami|abuela|tia|hermana|prima|jefe|"
    r"patron|supervisor|maestra)s?\b"
    # "... is gonna kill me if i forget our anniversary": what would set it off is a small slip, not leaving.
    r"|\b(?:gonna|going to|gon|finna|will|va a|me va a) (?:kill|murder|matar) ?(?:me|us)? (?:if|si) (?:i |yo )?"
    r"(?:forget|forgot|miss|am late|im late|get home late|come home late|show up late|lose|spend|eat|break|crash|"
    r"scratch|mess up|dont (?:call|text|pick|bring|clean|wash|show)|olvido|se me olvida|llego tarde|pierdo|gasto|"
    r"choco|rayo|no (?:llego|le hablo|recojo|limpio))\b"
    r"|\bi(?:d| would) rather die than\b"
    r"|\b(?:gonna|going to) die before (?:she|he|they|i|we) (?:gets? to |ever )?(?:see|sees|meet|meets)\b|\b(?:phone|battery|cel|celular|telefono|pila)\b[\w ]{0,20}\b(?:die|dead|dying|morir)\b"
)
_DYING_OF: Final = re.compile(r"\b(?:me|i) (?:quiero|voy a|va a) morir(?:me)? de\b")
# What turns "gonna kill me" back into a threat: a weapon, a debt, a past attack, a threat named.
_THREAT_NAMED_WORDS: Final = (
    r"gun|pistol|knife|rifle|pistola|cuchillo|navaja|arma|deuda|debt|owe|threat\w*|amenaz\w*|stabbed|shot|"
    r"beat|golpe\w*|pego|hit me"
)
_WEAPON_OR_THREAT: Final = re.compile(rf"\b(?:{_THREAT_NAMED_WORDS}|before|antes)\b")
# Said on a condition ("… si no le llevo los papeles"), only a weapon, a debt or a threat named makes it one again.
_IF_AFTER: Final = re.compile(r" ?(?:if|si)\b")
_WEAPON_OR_THREAT_NAMED: Final = re.compile(rf"\b(?:{_THREAT_NAMED_WORDS})\b")
# Spanish first-person forms inside a hit ("quitarme la vida", "aventarme"): the writer, whatever
# word came before ("he pensado" is "I have thought", not "he").
_FIRST_REFLEXIVE: Final = re.compile(r"\w(?:rme|arme|irme|erme)\b|\bme (?:mato|quito|aviento|tiro)\b")
# Asking how to help someone else, or what the signs are (LABELING.md: `none`, the need is health).
_HELP_QUESTION: Final = re.compile(
    r"\b(?:how (?:do|can|should) i (?:help|talk|support|get (?:him|her|them))|what (?:do|should) i (?:say|do|tell)|"
    r"how to help|signs|warning signs|senales|como (?:le |lo |la )?(?:ayudo|puedo ayudar|hablo|apoyo)|"
    r"que le (?:digo|hago)|es normal|should i worry|me preocupo|how (?:do|can|would) i (?:know|tell)|"
    r"is (?:that|this|it) normal|como (?:se|sabes?|saber) si|what resources (?:can i|i can|i could|to|should i) (?:give|offer)|"
    r"que (?:le|les) puedo decir|a donde (?:lo|la) (?:puedo )?llev\w*|(?:quiero|para|como) ayudarl[oae]s?|"
    r"como le (?:hago (?:para|pa)|consigo)|(?:number|numero|resources?|recursos?) (?:i can|i could|to|que le (?:puedo )?) ?give (?:him|her|them)|"
    r"que numero le (?:doy|puedo dar)|(?:para|pa) que (?:vea|hable con|vaya (?:con|a)) (?:a )?(?:un |una )?"
    r"(?:psicolog[oa]|consejer[oa]|doctor|doctora|terapeuta|psiquiatra)|"
    r"get (?:him|her|them) (?:to see|into|in with|to talk to) (?:a |an )?(?:counselor|therapist|psychologist|doctor|psychiatrist))\b"
)
# The writer is without a bed too ("we have nowhere", "i got nowhere either"): the help question is their own.
_WRITER_WITHOUT_BED: Final = re.compile(
    r"\b(?:we|i|me|us)\b[^.?!]{0,20}\b(?:nowhere|no place|no where|sin donde|no tenemos)\b"
)
# Someone else's words quoted ("my cousin keeps saying 'i wanna die'"): the "i" inside is not the writer.
_QUOTED_SPEECH: Final = re.compile(
    r"\b(?:keeps? saying|kept saying|always says|says|said|dice|dijo|conto|anda diciendo|sigue diciendo)"
    r"(?: que| q)?(?: (?:anda|esta|sigue|ya))?(?: pensando en)?\W{0,3}(?:i |yo |me )?$"
)
# A grief or support group asked for about a loss or harm that is over (LABELING.md: past events, none).
_SUPPORT_GROUP: Final = re.compile(
    r"\b(?:grief|duelo|support groups?|grupos? de (?:apoyo|duelo)|lost (?:someone|somebody|a friend|friends|"
    r"my \w+) to|perdi a \w+ por)\b"
)
# A past assault the person is carrying now stays a crisis (LABELING.md); one they say they have worked
# through, asking for a group, does not.
_CARRYING_NOW: Final = re.compile(
    r"\b(?:flashbacks?|nightmares?|pesadillas|never told|nunca (?:se lo )?(?:he|le he) (?:dicho|contado)|first time i|"
    r"primera vez que|cant stop|can not stop|no puedo dejar|still (?:hurts|haunts|scared)|todavia me (?:duele|persigue))\b"
)
_RESOLVED: Final = re.compile(
    r"\b(?:in therapy|en terapia|worked through|estoy mejor|im better|i am better|doing better|ya lo supere|"
    r"ya lo hable|healed|sane)\b"
)
# Housing trouble that is weeks away, not tonight (LABELING.md: housing loss later is not an emergency).
_LATER: Final = re.compile(
    r"\b(?:next (?:week|month)|in (?:a|one|two|three|\d+) (?:weeks?|months?)|(?:el|la) (?:mes|semana) que (?:entra|viene)|"
    r"en (?:una|dos|tres|\d+|unas) semanas?|en (?:un|dos|\d+) mes(?:es)?|el proximo mes|planning|planear|planeando|"
    r"(?:gave me|giving me|have|got|tengo|me dieron|me dan) (?:\d+|thirty|treinta|sixty) (?:days|dias))\b"
)
# A bed found since ("pero ya encontre un cuarto"): the nights without one are over.
_HOUSED_NOW: Final = re.compile(
    r"\b(?:ya (?:encontre|consegui|tengo) (?:un |una |mi )?(?:cuarto|lugar|casa|cama|depa|apartamento)|"
    r"(?:found|got|have) (?:a |my own )?(?:room|place|bed|apartment|apt) now|(?:finally )?found a (?:room|place|apartment))\b"
)
# "Violar" as a PO's parole violation ("mi PO dice que me viola si no pago"), not a sexual assault.
_PAROLE_VIOLATION: Final = re.compile(
    r"\b(?:po|parole|parol|oficial|officer|probation|probatoria)\b[\w ]{0,25}\bme (?:viola|van a violar|va a violar)\b"
    r"[\w ]{0,10}\b(?:si|if|por)\b"
    r"|\bme violan? (?:el|la|mi) (?:parole|parol|probation|probatoria|libertad)\b"
    r"|\bme violaron (?:por|el|la|mi)\b[\w ]{0,30}\b(?:ua|parole|parol|probation|probatoria|po|oficial|audiencia)\b"
    r"|\bsi\b[\w ]{0,40}\b(?:el|mi|la) (?:po|oficial|parole officer|probation officer) me (?:viola|violan|va a violar)\b"
    r"|\b(?:po|parole|parol|oficial|probation|probatoria|cita|ua)\b[\w ]{0,60}\bsi\b[\w ]{0,30}\bme violan?\s*\W*$"
)
# A research or statistics question about people in general, not the writer now.
_RESEARCH: Final = re.compile(
    r"\b(?:what percent\w*|percentage|porcentaje|statistic\w*|estadistic\w*|how common|how many people|"
    r"cuant[oa]s personas|cuanta gente|cuantos se|research\w*|investigacion|sociology|paper for|doing a paper|"
    r"tarea|proyecto|for (?:my|a) class|pa mi clase|para mi clase|is it true|es cierto|es verdad|i read|lo vi en|lei (?:que|en)|"
    r"in the news|en las noticias|most (?:overdoses|people)|stats|pregunta general|general question|"
    r"hypothetical\w*|hipotetic\w*|how many (?:ppl|guys|men|women|folks|of us|dudes|inmates)|(?:the|actual) rates?|"
    r"(?:the )?news (?:said|says)|saw (?:it )?on the news|good samaritan|cuant[oa]s (?:\w+ )?(?:se mueren|mueren))\b"
)
# A class, an interview or a training the writer is preparing: the hit word is its topic, even said by "I".
_STUDY: Final = re.compile(
    r"\b(?:interviewing|interview|entrevistando|entrevistar) (?:people|gente|personas|folks|guys|men|women)\b"
    r"|\bfor (?:my|a|the) (?:class|training|paper|study|presentation|workshop|essay|report)\b"
    r"|\b(?:para|pa) (?:mi|una|la) (?:clase|capacitacion|presentacion|tarea|investigacion|taller)\b"
    r"|\b(?:a |the )?(?:training|presentation|workshop|class) (?:im|i am|were|we are) (?:giving|doing|teaching|leading)\b"
    # Material for others about the topic: signs, flyers, a bulletin board, prevention or peer-support work.
    r"|\b(?:warning )?signs of\b|\b(?:folletos?|flyers?|pamphlets?|brochures?|bulletin board|volunteer\w*|voluntari\w*)\b"
    r"|\b(?:peer support|prevenir|prevencion|prevention)\b"
)
_TOPIC_WORD: Final = re.compile(r"(?:suicid\w*|overdos\w*|sobredosis|suicidio|self ?harm)")
# Said to be a joke in so many words: the hit is hyperbole (a laugh alone is not enough for a method).
_KIDDING: Final = re.compile(r"\b(?:jk|j k|just kidding|just playing|im playing|es broma|nomas bromeo|no es cierto)\b")
_CLAUSE_BREAK: Final = re.compile(r"[.!?;,]|\b(?:but|pero|now|ahora|though|tho|anyway)\b")
_IMMINENT_TIME: Final = re.compile(
    r"\b(?:tonight|tonite|2nite|right now|rn|today|this morning|esta noche|ahorita|ahora mismo|hoy)\b"
)
# A time word the message itself negates ("not tonight, they gave me 30 days", "he isn't in danger right
# now", "hes not with me rn"): it does not make the message urgent.
_NOT_NOW: Final = re.compile(
    r"\b(?:not|isnt|is not|no es|no)\s+(?:tonight|today|right now|rn|hoy|esta noche)\b"
    r"|\b(?:not|isnt|is not|no esta|no anda)\s+(?:in danger|en peligro|with me|conmigo|here|aqui)\b"
    r"(?:[\w ]{0,4}(?:right now|rn|ahorita|today|hoy|tonight))?"
)
# Someone else said to be calm or safe for now ("ahorita está con su mamá y está tranquilo").
_CALM_NOW: Final = re.compile(
    r"\b(?:esta|anda|is|hes|shes) (?:tranquil[oa]|calm|a salvo|safe|okay|fine|bien)\b"
    r"|\b(?:hes|shes|is|esta) (?:with|con) (?:my|his|her|our|mi|su|sus|nuestra) (?:mom|mother|dad|father|family|wife|sister|"
    r"brother|mama|papa|familia|esposa|hermana|hermano)\b"
)


def _imminent(norm: str) -> bool:
    """An urgent time word that the message does not negate."""
    return _IMMINENT_TIME.search(_NOT_NOW.sub(" ", norm)) is not None


_NEARBY: Final = re.compile(r"\b(?:outside|here|coming|at the door|right now|rn)\b")
_SUICIDE_MEANS: Final = re.compile(
    r"\b(?:pills|gun|rope|noose|bridge|overpass|train|pastillas|pistola|cuerda|blade|razor|puente)\b"
)
_HARDSHIP: Final = re.compile(
    r"\b(?:kids?|baby|daughter|son|children|freezing|cold|raining|rain|hijos?|frio|\d+ degrees)\b"
)
_PARTNER_RX: Final = re.compile(rf"\b(?:my|mi|mis|la|el|his|her) (?:\w+ )?{_PARTNER}\b")
# Who is doing it decides the line (LABELING.md): a current or former partner, or a partner's relative acting
# for them, is domestic violence; a relative of the person's own (a stepfather, an uncle, a brother-in-law) or a
# neighbour or roommate is immediate danger. _PARTNER also holds a parent and in-laws so the violence rules
# catch them; the line is then decided by who is named.
_ONLY_PARTNER_RX: Final = re.compile(
    r"\b(?:my|mi|mis|la|el|his|her) (?:\w+ )?(?:boyfriend|bf|husband|hubby|ex|ex ?husband|ex ?boyfriend|ex ?wife|"
    r"ex ?girlfriend|girlfriend|gf|wife|partner|baby ?dadd?y|bd|baby ?mama|bm|fiance|fiancee|old man|old lady|girl|"
    r"man|boo|bae|esposo|esposa|exesposo|exesposa|novio|novia|exnovio|exnovia|marido|mujer|pareja|expareja|"
    r"suegro|suegra)s?\b"
)
_OWN_KIN_RX: Final = re.compile(
    r"\b(?:my|mi|mis|his|her) (?:\w+ )?(?:step ?dad|step ?father|step ?mom|step ?mother|dad|father|brother in law|"
    r"brother|uncle|cousin|nephew|neighbou?r|roommate|padrastro|madrastra|papa|padre|hermano|tio|primo|sobrino|"
    r"cunado|vecino|companero de cuarto)s?\b"
)
_THIRD_TOKENS: Final = frozenset(
    "he she hes shes they theyre him her them his who friend friends homie homeboy homegirl brother "
    "sister bro cousin son daughter mom mother dad father uncle aunt cellie celly roommate girlfriend "
    "boyfriend husband wife girl man partner tio tia primo prima hermano hermana amigo amiga hijo hija "
    "el ella someone somebody person guy dude niece nephew".split()
)
_FIRST_TOKENS: Final = frozenset("i im ive id ill me myself yo estoy quiero mi".split())
_FIRST_SUBJECTS: Final = frozenset("i im ive id ill yo tengo traigo".split())
_THIRD_IN_MATCH: Final = re.compile(
    r"him ?self|her ?self|them ?sel|\bse\b|\b(?:his|her) life\b|\b(?:doesnt|wants|has|is)\b"
)
_FIRST_IN_MATCH: Final = re.compile(r"\b(?:my ?self|me|my|mi|i|im|ive)\b")
_WORD: Final = re.compile(r"[a-z]+")


@dataclass(frozen=True, slots=True)
class CrisisResult:
    """What the check found: the top category, its severity and the evidence spans (normalized text)."""

    category: str = NONE
    severity: str = "none"
    spans: tuple[tuple[int, int, str], ...] = ()
    about_third_party: bool = False
    categories: tuple[str, ...] = ()  # every crisis category detected, most urgent first
    source: str = "rules"  # "rules", "model" or "rules+model" after combine_crisis

    @property
    def is_crisis(self) -> bool:
        return self.category != NONE


class CrisisOpinion(Protocol):
    """A second opinion (e.g. from a model): only its category and severity are read."""

    @property
    def category(self) -> str: ...

    @property
    def severity(self) -> str: ...


@dataclass(frozen=True, slots=True)
class _Hit:
    category: str
    severity: str
    start: int
    end: int
    text: str
    third_party: bool
    means: bool
    clause: tuple[int, int]


def _clause(text: str, start: int, end: int) -> tuple[int, int]:
    """Bounds of the clause holding [start, end): the context for history and subject checks."""
    lo = max(0, start - 160)
    left = lo
    for m in _CLAUSE_BREAK.finditer(text, lo, start):
        left = m.end()
    right_m = _CLAUSE_BREAK.search(text, end, min(len(text), end + 160))
    right = right_m.start() if right_m else min(len(text), end + 160)
    return left, right


def _subject(text: str, start: int, end: int, clause_start: int) -> str | None:
    """Who the hit is about: "first", "third" or None when the clause does not say."""
    matched = text[start:end]
    if _THIRD_IN_MATCH.search(matched):
        return "third"
    if _FIRST_IN_MATCH.search(matched):
        return "first"
    if _QUOTED_SPEECH.search(text, max(clause_start, start - 40), start):
        return "third"
    for word in reversed(_WORD.findall(text, clause_start, start)):
        if word in _FIRST_TOKENS:
            return "first"
        if word in _THIRD_TOKENS:
            return "third"
    return None


def _writer_is_actor(text: str, start: int, clause_start: int) -> bool:
    """True when the nearest subject before the hit is the writer ("i have a knife for work")."""
    for word in reversed(_WORD.findall(text, clause_start, start)):
        if word in _FIRST_SUBJECTS:
            return True
        if word in _THIRD_TOKENS or word in ("men", "guys", "people", "someone", "they"):
            return False
    return False


def _resolve_threat(norm: str, start: int, end: int) -> str:
    # Who threatens decides the line: a partner (or a relative) is domestic violence; _hits then moves the
    # writer's own relative or housemate to immediate danger, as it does for every domestic-violence hit.
    if _PARTNER_RX.search(norm, max(0, start - 160), min(len(norm), end + 80)):
        return DV
    return DANGER


def _kin_not_partner(norm: str, lo: int, hi: int) -> bool:
    """The person doing it is named as the writer's own relative or housemate, and no partner is named."""
    return bool(_OWN_KIN_RX.search(norm, lo, hi)) and not _ONLY_PARTNER_RX.search(norm, lo, hi)


def _hits(norm: str) -> list[_Hit]:
    joking = _JOKE.search(norm) is not None
    found: list[_Hit] = []
    for rule in _RULES:
        if (rule.joke_sensitive and joking) or (rule.context is not None and not rule.context.search(norm)):
            continue
        for m in rule.pattern.finditer(norm):
            start, end = m.span()
            if end == start:
                continue
            c_lo, c_hi = _clause(norm, start, end)
            if rule.negatable and _NEGATION_BEFORE.search(norm, max(c_lo, start - 60), start):
                continue
            clause = norm[c_lo:c_hi]
            if rule.historical and _HISTORICAL.search(clause):
                continue
            if _REPORTED_QUESTION.search(norm, c_lo, start):
                continue
            if rule.category == MEDICAL and _MEDICAL_HISTORICAL.search(clause):
                continue
            subject = _subject(norm, start, end, c_lo)
            if rule.other_actor and _writer_is_actor(norm, start, c_lo):
                continue
            if _not_now_or_not_theirs(norm, start, end, rule.category, subject):
                continue
            category = _resolve_threat(norm, start, end) if rule.category == _THREAT else rule.category
            if category == DV and _kin_not_partner(norm, max(0, start - 160), min(len(norm), end + 80)):
                category = DANGER
            found.append(
                _Hit(category, rule.severity, start, end, m.group(0), subject == "third", rule.means, (c_lo, c_hi))
            )
    return _absorb_injuries(_drop_danger_over(norm, found))


# An attack that is over ("got jumped last night") with an injury now: the emergency is the injury.
_RECENT_PAST: Final = re.compile(r"\b(?:last night|yesterday|earlier today|the other night|anoche|ayer|antier)\b")


def _drop_danger_over(norm: str, hits: list[_Hit]) -> list[_Hit]:
    """Drop an immediate-danger hit said to be over when a medical sign is present now."""
    if not any(h.category == MEDICAL for h in hits):
        return hits
    return [h for h in hits if not (h.category == DANGER and _RECENT_PAST.search(norm, *h.clause))]


def _over_later_or_another_sense(norm: str, start: int, end: int, category: str, subject: str | None) -> bool:
    """Housing trouble weeks away, a PO's "me viola" (a violation), or a group asked for about a loss or an
    assault that is over; never when the message says tonight or that the person is carrying it now."""
    if _imminent(norm):
        return False
    if category == HOUSING and (_LATER.search(norm) or _HOUSED_NOW.search(norm)):
        return True
    if category == ASSAULT and _PAROLE_VIOLATION.search(norm, max(0, start - 60), min(len(norm), end + 60)):
        return True
    return bool(
        _SUPPORT_GROUP.search(norm)
        and not _CARRYING_NOW.search(norm)
        and (subject != "first" or _HISTORICAL.search(norm))
        and (category != ASSAULT or _RESOLVED.search(norm))
    )


def _a_topic_or_a_joke(norm: str, start: int, end: int, category: str) -> bool:
    """The hit word is the topic of a class or interview, or the writer says outright it was a joke."""
    if _STUDY.search(norm) and _TOPIC_WORD.fullmatch(norm[start:end]):
        return True
    return category == SUICIDE and bool(_KIDDING.search(norm) and _JOKE.search(norm)) and not _imminent(norm)


def _not_now_or_not_theirs(norm: str, start: int, end: int, category: str, subject: str | None) -> bool:
    """The narrow contexts LABELING.md calls `none`: an idiom around the hit; a research question about
    people in general; someone else's suicidal talk asked about (how to help a friend), unless it is
    happening now. Anything first-person, or said to be happening tonight, is kept."""
    serious = _IMMINENT_TIME.search(norm) or _WEAPON_OR_THREAT.search(norm)
    if _over_later_or_another_sense(norm, start, end, category, subject):
        return True
    for m in _IDIOM.finditer(norm, max(0, start - 60), min(len(norm), end + 60)):
        # A weapon or a past attack makes "gonna kill me" a threat again; it cannot make "dying of shame" one
        # ("me quiero morir de la verguenza, fui un dia antes" is still the idiom).
        hyperbole = _DYING_OF.match(m.group(0)) is not None
        # "mi jefa me va a matar si no le llevo los papeles hoy": said on a condition, the time word and the "before"
        # belong to the errand; only a weapon, a debt or a threat named makes it one again.
        conditional = _IF_AFTER.match(norm, m.end()) is not None
        threat = _WEAPON_OR_THREAT_NAMED.search(norm) if conditional else serious
        if (m.start() <= start < m.end() or start <= m.start() < end) and (hyperbole or not threat):
            return True
    if (subject != "first" and _RESEARCH.search(norm)) or _a_topic_or_a_joke(norm, start, end, category):
        return True
    if (
        category == HOUSING
        and subject == "third"
        and _HELP_QUESTION.search(norm)
        and not _WRITER_WITHOUT_BED.search(norm)
    ):
        return True  # a friend elsewhere with no bed tonight, asked how to help: someone else's, LABELING.md's `none`
    if category != SUICIDE or subject != "third" or _FIRST_REFLEXIVE.search(norm, start, end):
        return False
    # Only a question about how to help is cancelled; a bare report ("my daughter said she wants to kill
    # herself") still routes to 988. A partner threatening self-harm to keep someone is coercion: kept.
    calm = not _imminent(norm) or _CALM_NOW.search(norm) is not None
    return bool(_HELP_QUESTION.search(norm)) and calm and not _PARTNER_RX.search(norm)


def _absorb_injuries(hits: list[_Hit]) -> list[_Hit]:
    """Fold medical signs caused by violence into the violence ("choked me till i passed out").

    The person still gets 911 (severity stays), but the line matches what happened to them.
    """
    violent = [h for h in hits if h.category in (DV, ASSAULT, DANGER)]
    if not violent:
        return hits
    out: list[_Hit] = []
    for hit in hits:
        cause = next((v for v in violent if hit.category == MEDICAL and _same_sentence(v, hit)), None)
        if cause is None:
            out.append(hit)
        else:
            out.append(
                _Hit(cause.category, hit.severity, hit.start, hit.end, hit.text, hit.third_party, hit.means, hit.clause)
            )
    return out


def _same_sentence(a: _Hit, b: _Hit) -> bool:
    return abs(a.start - b.start) < 80 and not (a.clause[1] < b.clause[0] - 2 or b.clause[1] < a.clause[0] - 2)


def _severity(category: str, hits: list[_Hit], norm: str) -> str:
    """The rules' severity, raised by means or timing and lowered only for a past sexual assault."""
    rank = max(_RANK[h.severity] for h in hits)
    soon = _IMMINENT_TIME.search(norm) is not None
    if category == SUICIDE:
        if soon or any(h.means for h in hits) or _SUICIDE_MEANS.search(norm):
            rank = _RANK["imminent"]
    elif category in (DV, ASSAULT) and soon and _NEARBY.search(norm):
        rank = _RANK["imminent"]
    elif category == ASSAULT and _HISTORICAL.search(norm):
        rank = _RANK["elevated"]  # still routed to RAINN, which supports survivors whenever it happened
    elif category == HOUSING and (soon or _HARDSHIP.search(norm)):
        rank = max(rank, _RANK["high"])
    return SEVERITIES[rank]


def detect_crisis(text: str) -> CrisisResult:
    """Classify one raw user message; never raises, whatever the input."""
    norm = normalize(text)
    if not norm:
        return CrisisResult()
    hits = _hits(norm)
    if not hits:
        return CrisisResult()
    by_category: dict[str, list[_Hit]] = {}
    for hit in hits:
        by_category.setdefault(hit.category, []).append(hit)
    categories = tuple(c for c in CRISIS_CATEGORIES if c in by_category)
    top = categories[0]
    rank = max(_RANK[_severity(c, by_category[c], norm)] for c in categories)
    return CrisisResult(
        category=top,
        severity=SEVERITIES[rank],
        spans=tuple(sorted({(h.start, h.end, h.text) for h in hits})),
        about_third_party=all(h.third_party for h in by_category[top]),
        categories=categories,
    )


def _valid_opinion(opinion: CrisisOpinion | None) -> tuple[str, str]:
    """Read a second opinion defensively: anything malformed counts as no opinion."""
    category = getattr(opinion, "category", NONE)
    severity = getattr(opinion, "severity", "none")
    if category not in CRISIS_CATEGORIES:
        return NONE, "none"
    if severity not in _RANK or severity == "none":
        severity = "elevated"  # a model naming a crisis but no severity still counts
    return category, severity


def combine_crisis(deterministic: CrisisResult, model_opinion: CrisisOpinion | None) -> CrisisResult:
    """Merge a model's opinion into the rule result; the outcome is never less urgent than the rules."""
    category, severity = _valid_opinion(model_opinion)
    if category == NONE:
        return deterministic
    if not deterministic.is_crisis:
        return CrisisResult(category=category, severity=severity, categories=(category,), source="model")
    # The model re-routes only by being strictly more urgent; ties keep the rules' category.
    model_wins = _RANK[severity] > _RANK[deterministic.severity]
    top = category if model_wins else deterministic.category
    others = [c for c in CRISIS_CATEGORIES if c != top and (c in deterministic.categories or c == category)]
    return CrisisResult(
        category=top,
        severity=severity if model_wins else deterministic.severity,
        spans=deterministic.spans,
        about_third_party=deterministic.about_third_party and not model_wins,
        categories=(top, *others),
        source="rules+model",
    )


def crisis_check(text: str, model_opinion: CrisisOpinion | None = None) -> CrisisResult:
    """The ingress crisis hook: the rules on the raw text, OR the trained model (which can only escalate).

    `model_opinion` is the message model's assessment of the redacted text (None or unavailable: the
    rules alone). Never raises.
    """
    rules = detect_crisis(text)
    if model_opinion is None or not getattr(model_opinion, "available", True):
        return rules
    return combine_crisis(rules, model_opinion)


# The trained model's borderline alarms do not carry. The trainer fits the bar on the dev conversations
# (`train.carry_threshold`) and the artifact carries it (`Assessment.carry_threshold`); this is the bar for an
# artifact trained before it did so: every dev conversation crisis that a later turn truly continued began at a
# rules hit or at a model probability of 0.81 or more (mm-1be307f5be1d), the false ones that carried at 0.36-0.65.
CARRY_MIN_MODEL_PROBABILITY: Final = 0.75


def crisis_carries(
    result: CrisisResult, model_probability: float, threshold: float = CARRY_MIN_MODEL_PROBABILITY
) -> bool:
    """Whether a turn's crisis may carry to the next message that continues it.

    The rules, a second opinion or an earlier carry always do; the message model alone only when it was
    sure (at least `threshold`, the model's own carry bar). A borderline alarm still gets its handoff on its
    own turn; the next message is judged on its own.
    """
    if not result.is_crisis:
        return False
    return result.source != "model" or model_probability >= threshold


def carry_crisis(current: CrisisResult, previous: str | None, *, continues: bool) -> CrisisResult:
    """Keep an ongoing crisis when the next message continues it ("estamos en odessa, sigue sin despertar").

    Only ever escalates: a message that names its own crisis keeps it, and one that does not continue
    the previous turn (a thank-you, a new topic) is judged on its own.
    """
    if current.is_crisis or not continues or previous not in CRISIS_CATEGORIES:
        return current
    return CrisisResult(category=previous, severity="high", categories=(previous,), source="context")
