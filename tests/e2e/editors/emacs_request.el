;;; emacs_request.el --- drive a language server from Emacs 28 + eglot 1.9 in batch  -*- lexical-binding: t -*-
;;
;;   AGENTLS_TEST_ROOT=DIR AGENTLS_TEST_CMD='["python","-m","server","--stdio"]' \
;;   AGENTLS_TEST_FILE=app.py AGENTLS_TEST_METHOD=test/apply \
;;   AGENTLS_TEST_PARAMS='{...}' AGENTLS_TEST_ANSWER=yes AGENTLS_TEST_OUT=out.json \
;;   AGENTLS_TEST_INIT='{...}' emacs --batch -l emacs_request.el
;;
;; Opens FILE with eglot connected to the server, sends METHOD with PARAMS, answers
;; eglot's own "Server wants to edit ... Proceed?" (y-or-n-p) with ANSWER, then writes
;; {result, error, buffer, modified, questions} as JSON to OUT.

(require 'json)
(require 'project)
(require 'eglot)

(defvar agentls-test-report nil)
(defvar agentls-test-questions nil)

(defun agentls-test-env-json (name)
  (let ((value (getenv name)))
    (and value (not (string= value ""))
         (let ((json-object-type 'plist) (json-array-type 'vector) (json-false :json-false))
           (json-read-from-string value)))))

(let* ((root (file-name-as-directory (getenv "AGENTLS_TEST_ROOT")))
       (out (getenv "AGENTLS_TEST_OUT"))
       (answer (getenv "AGENTLS_TEST_ANSWER"))
       (cmd (append (agentls-test-env-json "AGENTLS_TEST_CMD") nil))
       (init (agentls-test-env-json "AGENTLS_TEST_INIT"))
       (params (agentls-test-env-json "AGENTLS_TEST_PARAMS"))
       (method (intern (concat ":" (getenv "AGENTLS_TEST_METHOD"))))
       result error-message buffer-text modified)
  (setq eglot-confirm-server-initiated-edits 'confirm
        eglot-sync-connect t
        eglot-connect-timeout 60
        eglot-send-changes-idle-time 0
        eglot-autoshutdown nil)
;; Batch Emacs blocked in `jsonrpc-request' never goes idle, so eglot's idle timer
  ;; that sends didChange would not fire: send it right after eglot applied an edit,
  ;; as an interactive Emacs does within `eglot-send-changes-idle-time'.
  (advice-add 'eglot--apply-text-edits :after
              (lambda (&rest _) (eglot--signal-textDocument/didChange)))
  (fset 'y-or-n-p (lambda (prompt)
                    (push prompt agentls-test-questions)
                    (string= answer "yes")))
  (condition-case err
      (let* ((file (expand-file-name (getenv "AGENTLS_TEST_FILE") root))
             (buf (find-file-noselect file))
             (project (cons 'transient root))
             (contact (if init
                          (append cmd (list :initializationOptions init))
                        cmd)))
        (with-current-buffer buf
          (python-mode)
          (let ((server (eglot '(python-mode) project 'eglot-lsp-server contact "python")))
            (unless (eglot-current-server) (error "eglot did not manage the buffer"))
            (condition-case rpc-err
                (setq result (jsonrpc-request server method params :timeout 110))
              (jsonrpc-error
               (setq error-message (format "%S" (cdr rpc-err)))))
            ;; let the didChange timer fire before the buffer is read
            (accept-process-output nil 0.2)
            (setq buffer-text (buffer-substring-no-properties (point-min) (point-max))
                  modified (buffer-modified-p))
            (ignore-errors (eglot-shutdown server)))))
    (error (setq error-message (format "script error: %S" err))))
  (setq agentls-test-report
        (list :result result
              :error error-message
              :buffer buffer-text
              :modified (if modified t :json-false)
              :questions (vconcat (reverse agentls-test-questions))))
  (with-temp-file out
    (insert (json-encode agentls-test-report)))
  (kill-emacs 0))
