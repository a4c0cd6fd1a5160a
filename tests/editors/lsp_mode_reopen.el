;;; lsp-mode with the docs' setup: the question in its buffer beside the diff, C-g rejects at  -*- lexical-binding: t -*-
;;; once, multi-paragraph answers whole in *tandem*, progress in the mode line, the transcript;
;;; after a restart (TANDEM_TEST_PHASE=resume) the session is reopened and continued.

(package-activate-all)
(load (expand-file-name "emacs_lib.el" (getenv "TANDEM_TEST_SCRIPTS")) nil t)

(defun tt-start ()
  (let ((root (getenv "TANDEM_TEST_ROOT")))
    (load (getenv "TANDEM_TEST_SETUP") nil t t)
    (require 'lsp-mode)
    (advice-add 'tandem-lsp--show-answer :before
                (lambda (_workspace params) (tt-push "messages" (lsp-get params :message))))
    (advice-add 'tandem-lsp--ask :before
                (lambda (_workspace params _reply) (tt-push "questions" (lsp-get params :message))))
    (advice-add 'lsp-on-progress-modeline :before
                (lambda (_workspace params)
                  (let ((value (lsp-get params :value)))
                    (tt-push "progress" (list :kind (lsp-get value :kind)
                                              :message (or (lsp-get value :message) ""))))))
    (advice-add 'lsp-on-progress-modeline :after
                (lambda (&rest _)
                  (tt-push "mode_line" (with-current-buffer "answer.py"
                                         (or (lsp--progress-status) "")))))
    (lsp-workspace-folders-add root)
    (find-file (expand-file-name "answer.py" root))
    (lsp)
    (tt-wait "tandem to start"
             (lambda () (when-let ((ws (lsp-find-workspace 'tandem (buffer-file-name))))
                          (eq (lsp--workspace-status ws) 'initialized))))))

(tt-run (lambda ()
          (tt-start)
          (if (equal (getenv "TANDEM_TEST_PHASE") "resume")
              (tt-resume-story #'tandem-lsp-resume #'tandem-lsp-ask)
            (tt-question-story #'tandem-lsp-ask (lambda () tandem-lsp--diff-window))
            ;; The transcript opens, selected.
            (with-current-buffer "answer.py" (tandem-lsp-transcript))
            (tt-wait "the transcript"
                     (lambda () (string-suffix-p ".md" (or (buffer-file-name (window-buffer)) ""))))
            (puthash "transcript" (with-current-buffer (window-buffer) (buffer-string)) tt-record)))
        #'tt-lsp-log)
