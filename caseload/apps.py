from django.apps import AppConfig


class CaseloadConfig(AppConfig):
    name = "caseload"
    verbose_name = "Caseload"
