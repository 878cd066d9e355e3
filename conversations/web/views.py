"""The mobile web chat: the page, its PWA files, and the session endpoints (current, consent, restart, delete).

The page itself holds no personal data (history comes from the API), so the service worker can
cache it as the offline shell. The conversation token lives only in the HttpOnly cookie.
"""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Any

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from conversations import selectors
from conversations.errors import ConversationError
from conversations.web import ratelimit
from conversations.web import selectors as web_selectors
from conversations.web import services as web_services
from conversations.web.cookies import request_token, token_cookie_clear, token_cookie_set

SHELL_STATIC = ("chat/chat.css", "chat/chat.js", "chat/icons/icon.svg", "chat/icons/icon-192.png")


def _catalog() -> dict[str, str]:
    """Every string the script shows, translated into the active language (no JS catalog request needed)."""
    return {
        "progress.intake": _("Reading your message…"),
        "progress.retrieve": _("Checking Texas rules…"),
        "progress.match": _("Finding places near you…"),
        "progress.draft": _("Writing the answer…"),
        "progress.audit": _("Double-checking the answer…"),
        "progress.send": _("Almost ready…"),
        "progress.escalate": _("Connecting you with people who can help…"),
        "progress.waiting": _("Still working on it…"),
        "you": _("You"),
        "navigator": _("Pathways"),
        "plan.title": _("Your first days out: a plan"),
        "plan.bring": _("Bring:"),
        "plan.places": _("Where:"),
        "plan.rules": _("The rule:"),
        "sources": _("Sources"),
        "places": _("Places that can help"),
        "call": _("Call"),
        "directions": _("Directions"),
        "website": _("Website"),
        "hours": _("Hours"),
        "languages": _("Languages"),
        "last_verified": _("Last checked"),
        "bring": _("Bring"),
        "attr.walk_in": _("Walk-ins welcome"),
        "attr.no_walk_in": _("No walk-ins"),
        "attr.accepts_records": _("Accepts people with records"),
        "attr.id_not_required": _("No ID needed"),
        "statewide": _("Statewide phone line"),
        "mi_away": _("{mi} miles away"),
        "map_label": _("Map of the places listed below"),
        "help_now": _("Help is available now"),
        "reply_ready": _("New reply from Pathways."),
        "human_mode": _("A case manager is handling this conversation and will answer here."),
        "staff_from": _("Case manager {name}"),
        "failed": _("Sorry, something went wrong with this answer. Please try again, or call 211 for help."),
        "err.rate_limited": _(
            "You are sending messages faster than we can answer. Please wait a minute, then press Send again. Your message is still in the box."
        ),
        "err.message_too_long": _("Your message is too long (2000 characters at most). Please make it shorter."),
        "err.empty_message": _("Please type a message."),
        "err.network": _(
            "Your message was not sent: there is no connection. It is still in the box; press Send when you are back online."
        ),
        "err.generic": _("Your message was not sent. It is still in the box; please try again."),
        "err.notice": _("Please read and accept the notice first."),
        "err.consent_required": _("Please read and accept the notice first."),
        "offline": _(
            "You are offline. Your conversation will come back when you reconnect. In a crisis, call or text 988."
        ),
        "online": _("You are back online."),
        "confirm_delete": _(
            "Delete all your conversations on this device for good, earlier ones included? This cannot be undone."
        ),
        "deleted": _("All your conversations on this device were deleted ({n})."),
        "restarted": _("You started a new conversation."),
        "sending": _("Sending…"),
    }


def _config(request: HttpRequest) -> dict[str, Any]:
    return {
        "language": translation.get_language() or settings.LANGUAGE_CODE,
        "notice_version": web_services.NOTICE_VERSION,
        "tile_url": settings.MAP_TILE_URL,
        "leaflet_js": static("vendor/leaflet/leaflet.js"),
        "leaflet_css": static("vendor/leaflet/leaflet.css"),
        "leaflet_images": static("vendor/leaflet/images/"),
        "service_worker": "/sw.js",
        "api": "/api/v1/",
    }


@require_GET
def chat(request: HttpRequest) -> HttpResponse:
    """The chat page; `?lang=en|es` switches the language (kept in Django's language cookie)."""
    lang = request.GET.get("lang")
    if lang in dict(settings.LANGUAGES):
        redirect = HttpResponseRedirect("/")
        redirect.set_cookie(
            settings.LANGUAGE_COOKIE_NAME, lang, max_age=365 * 24 * 3600, samesite="Lax", secure=request.is_secure()
        )
        return redirect
    context = {
        "catalog": _catalog(),
        "config": _config(request),
        "notice_version": web_services.NOTICE_VERSION,
        "retention_days": settings.RETENTION_DAYS,
        "other_language": "es" if translation.get_language() == "en" else "en",
    }
    response = render(request, "chat/index.html", context)
    response["Cache-Control"] = "no-cache"
    response["Vary"] = "Cookie, Accept-Language"
    return response


@cache
def _service_worker_source() -> str:
    with open(settings.BASE_DIR / "static" / "chat" / "sw.js", encoding="utf-8") as handle:
        return handle.read()


@require_GET
@never_cache
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker, served from the site root so its scope covers the chat page."""
    assets = [static(path) for path in SHELL_STATIC]
    source = _service_worker_source()
    digest = hashlib.sha256((source + "|".join(assets) + web_services.NOTICE_VERSION).encode())
    for path in SHELL_STATIC:
        # Unhashed file names in development: the contents decide when the cached shell is replaced.
        found = finders.find(path)
        if isinstance(found, str):
            with open(found, "rb") as handle:
                digest.update(handle.read())
    version = digest.hexdigest()[:12]
    body = source.replace("__SHELL_ASSETS__", ",".join(f'"{asset}"' for asset in assets)).replace(
        "__CACHE_VERSION__", version
    )
    return HttpResponse(body, content_type="text/javascript; charset=utf-8")


@require_GET
def manifest(request: HttpRequest) -> JsonResponse:
    """The web app manifest, in the person's language."""
    data = {
        "name": _("Pathways — Texas reentry help"),
        "short_name": "Pathways",
        "description": _(
            "Answers about IDs, housing, jobs, parole rules and more, with links to real Texas organizations."
        ),
        "lang": translation.get_language(),
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#ffffff",
        "theme_color": "#0b4f6c",
        "icons": [
            {"src": static("chat/icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": static("chat/icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
            {"src": static("chat/icons/icon-512.png"), "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
            {"src": static("chat/icons/icon.svg"), "sizes": "any", "type": "image/svg+xml"},
        ],
    }
    return JsonResponse(data, content_type="application/manifest+json", json_dumps_params={"ensure_ascii": False})


# --- session endpoints (same shape as conversations.web.api: domain errors, cookie or bearer token) ------------


def _session_json(conversation: Any, *, history: bool) -> dict[str, Any]:
    contact = conversation.contact
    data: dict[str, Any] = {
        "conversation_id": str(conversation.pk),
        "language": conversation.language,
        "mode": conversation.mode,
        "consent_version": contact.consent_version or None,
        "notice_version": web_services.NOTICE_VERSION,
    }
    if history:
        data["turns"] = web_selectors.conversation_history(conversation=conversation)
    return data


SESSION_SCHEMA = inline_serializer(
    "ChatSession",
    fields={
        "conversation_id": serializers.UUIDField(),
        "language": serializers.CharField(),
        "mode": serializers.CharField(),
        "consent_version": serializers.CharField(allow_null=True),
        "notice_version": serializers.CharField(),
        "turns": serializers.ListField(child=serializers.DictField(), required=False),
    },
)
ERROR_SCHEMA = inline_serializer("ChatError", fields={"error": serializers.DictField()})


class ConsentSerializer(serializers.Serializer):
    version = serializers.CharField(max_length=20)


class CurrentConversationView(APIView):
    """The conversation of this browser session (from the cookie) with its recent turns."""

    authentication_classes: list[Any] = []

    @extend_schema(responses={200: SESSION_SCHEMA, 404: ERROR_SCHEMA})
    def get(self, request: Request) -> Response:
        conversation = web_selectors.conversation_for_token(token=request_token(request))
        response = Response(_session_json(conversation, history=True))
        response["Cache-Control"] = "no-store"
        return response


class RestartConversationView(APIView):
    """Start over: a new, empty conversation for the same person; the old one is no longer shown."""

    authentication_classes: list[Any] = []

    @extend_schema(request=None, responses={201: SESSION_SCHEMA, 404: ERROR_SCHEMA, 429: ERROR_SCHEMA})
    def post(self, request: Request) -> Response:
        current = web_selectors.conversation_for_token(token=request_token(request))
        ratelimit.conversation_rate_check(request=request, action="restart")
        conversation, token = web_services.conversation_restart(conversation=current)
        response = Response(
            _session_json(conversation, history=False) | {"token": token}, status=status.HTTP_201_CREATED
        )
        token_cookie_set(response, request, token)
        return response


class ConsentView(APIView):
    """Record that the person accepted the current privacy notice (its version goes on the Contact)."""

    authentication_classes: list[Any] = []

    @extend_schema(
        request=ConsentSerializer,
        responses={200: SESSION_SCHEMA, 400: ERROR_SCHEMA, 403: ERROR_SCHEMA, 409: ERROR_SCHEMA},
    )
    def post(self, request: Request, conversation_id: Any) -> Response:
        conversation = selectors.conversation_get_authorized(
            conversation_id=conversation_id, token=request_token(request)
        )
        if not isinstance(request.data, dict):
            raise ConversationError("The request body must be a JSON object.", code="bad_body")
        serializer = ConsentSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        web_services.contact_consent_record(conversation=conversation, version=serializer.validated_data["version"])
        conversation.contact.refresh_from_db()
        return Response(_session_json(conversation, history=False))


class ConversationDeleteView(APIView):
    """Delete my conversations: every one from this device, with turns, node runs and outbox rows; audit keeps counts."""

    authentication_classes: list[Any] = []

    @extend_schema(
        request=None,
        responses={
            200: inline_serializer("ChatDeleted", fields={"deleted": serializers.DictField()}),
            403: ERROR_SCHEMA,
            404: ERROR_SCHEMA,
        },
    )
    def delete(self, request: Request, conversation_id: Any) -> Response:
        conversation = selectors.conversation_get_authorized(
            conversation_id=conversation_id, token=request_token(request)
        )
        counts = web_services.conversation_delete(conversation=conversation)
        # The answer says what went: every conversation of this device, not only the one on screen.
        response = Response({"deleted": counts}, status=status.HTTP_200_OK)
        token_cookie_clear(response)
        return response
