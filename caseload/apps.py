from django.apps import AppConfig
from django.db.models.signals import post_migrate


class CaseloadConfig(AppConfig):
    name = "caseload"
    verbose_name = "Caseload"

    def ready(self):
        from django.contrib.auth import signals as auth_signals

        from caseload import checks, signals  # noqa: F401 - registers the system check

        # After every migrate: new models' permissions reach the roles (see caseload/roles.py).
        post_migrate.connect(signals.roles_sync_after_migrate, sender=self, dispatch_uid="caseload.roles_sync")
        auth_signals.user_logged_in.connect(signals.login_recorded, dispatch_uid="caseload.login")
        auth_signals.user_logged_out.connect(signals.logout_recorded, dispatch_uid="caseload.logout")
        auth_signals.user_login_failed.connect(signals.login_failure_recorded, dispatch_uid="caseload.login_failed")
        signals.register_human_request_notice()
        from caseload import phone_links, sms_keywords
        from conversations.sms.commands import register_sms_command

        # Before outreach's handlers (INSTALLED_APPS order): YES goes to the newest open ask.
        register_sms_command("stop_sharing", phone_links.stop_sharing_command)
        register_sms_command("erase", sms_keywords.delete_command)
        register_sms_command("caseload_yes", sms_keywords.yes_command)
        signals.register_office_hours()
