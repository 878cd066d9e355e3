from django.apps import AppConfig


class OutreachConfig(AppConfig):
    name = "outreach"
    verbose_name = "Outreach: release plans and reminders"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from conversations.sms.commands import register_sms_command
        from outreach.sms import plan_command, reminder_command

        register_sms_command("reminders", reminder_command)
        register_sms_command("plan", plan_command)
