"""`manage.py mcp serve [--server NAME]` (stdio) and `manage.py mcp token create|revoke|list`."""

from __future__ import annotations

import argparse
import json

from django.core.management.base import BaseCommand, CommandError

from toolserver.errors import TokenError
from toolserver.models import StaffApiToken
from toolserver.server import SERVER_NAMES, build_server
from toolserver.services import staff_token_create, staff_token_revoke


class Command(BaseCommand):
    help = "Serve the read-only MCP tools over stdio, or manage the staff API tokens of /mcp/."

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        serve = sub.add_parser("serve", help="serve the MCP tools on stdin/stdout")
        serve.add_argument("--server", choices=SERVER_NAMES, default="pathways", help="which tool set (default: all)")
        token = sub.add_parser("token", help="staff API tokens for /mcp/")
        token_sub = token.add_subparsers(dest="token_action", required=True)
        create = token_sub.add_parser("create")
        create.add_argument("--user", required=True, help="username of an active staff account")
        create.add_argument("--name", default="mcp client")
        revoke = token_sub.add_parser("revoke")
        revoke.add_argument("token_id", type=int)
        token_sub.add_parser("list")

    def handle(self, *args: object, **options: object) -> None:
        if options["action"] == "serve":
            # stdout is the protocol: the SDK points fd 1 at stderr while it serves, logs go to stderr.
            build_server(str(options["server"])).run("stdio")
            return
        action = options["token_action"]
        if action == "create":
            try:
                row, token = staff_token_create(username=str(options["user"]), name=str(options["name"]))
            except TokenError as exc:
                raise CommandError(str(exc)) from None
            self.stdout.write(json.dumps({"id": row.pk, "name": row.name, "token": token}))
            self.stderr.write("The token is shown once; only its hash is stored.")
        elif action == "revoke":
            if not staff_token_revoke(token_id=int(options["token_id"])):  # type: ignore[call-overload]
                raise CommandError("No such active token.")
            self.stdout.write("revoked")
        else:
            for row in StaffApiToken.objects.select_related("user").order_by("pk"):
                state = "revoked" if row.revoked_at else "active"
                self.stdout.write(f"{row.pk}\t{row.prefix}…\t{row.user.get_username()}\t{row.name}\t{state}")
